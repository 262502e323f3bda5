import { invalidArgument } from "../../shared/errors.js";
import { parseName } from "../../shared/names.js";

/**
 * SetMemoAttachments' body (contract 7.9): only each `name` is read; the list order is the
 * display order and duplicates collapse to their first place.
 */
export function parseMemoAttachmentNames(raw: unknown): string[] {
	if (raw === undefined || raw === null) return [];
	if (!Array.isArray(raw)) throw invalidArgument("attachments must be a list");
	const ids: string[] = [];
	for (const [i, item] of raw.entries()) {
		const name = typeof item === "object" && item !== null ? (item as { name?: unknown }).name : undefined;
		const id = parseName("attachment", typeof name === "string" ? name : "", `attachments[${i}].name`);
		if (!ids.includes(id)) ids.push(id);
	}
	return ids;
}
