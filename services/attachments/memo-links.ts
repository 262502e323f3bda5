import { failedPrecondition, invalidArgument } from "../../shared/errors.js";
import { parseName } from "../../shared/names.js";
import { fieldOf, optionalMessageOf, stringOf } from "../../shared/request-message.js";
import type { Collection } from "../../shared/store/document-store.js";
import { attachmentNotFound } from "./attachment-access.js";
import type { AttachmentDoc } from "./attachment-doc.js";
import type { LinkTarget } from "./attachments.contract.js";

/**
 * SetMemoAttachments' body (contract 7.9): only each `name` is read; the list order is the
 * display order and duplicates collapse to their first place.
 */
export function parseMemoAttachmentNames(raw: unknown): string[] {
	if (raw === undefined || raw === null) return [];
	if (!Array.isArray(raw)) throw invalidArgument("attachments must be a list");
	const ids: string[] = [];
	for (const [i, item] of raw.entries()) {
		const field = `attachments[${i}]`;
		const name = stringOf(fieldOf(optionalMessageOf(item, field) ?? {}, "name"), `${field}.name`);
		const id = parseName("attachment", name, `${field}.name`);
		if (!ids.includes(id)) ids.push(id);
	}
	return ids;
}

/**
 * The rules of 7.9, checked before anything changes: each attachment exists and belongs to the
 * memo's creator (else NOT_FOUND), unless already linked to this memo; one linked to another
 * memo is FAILED_PRECONDITION.
 */
export async function checkLinks(attachments: Collection<AttachmentDoc>, target: LinkTarget, ids: readonly string[]): Promise<void> {
	const docs = new Map((await attachments.find({ _id: { $in: [...ids] } })).map(doc => [doc._id, doc]));
	for (const id of ids) {
		const doc = docs.get(id);
		if (doc?.memoId === target.id) continue;
		if (doc === undefined || doc.creatorId !== target.creatorId) throw attachmentNotFound(id);
		if (doc.memoId !== null) throw failedPrecondition(`attachment "attachments/${id}" is linked to another memo`);
	}
}

/**
 * Makes `ids` (checked) the memo's set in this order; the others are unlinked, not deleted. An
 * attachment linked elsewhere since the check is left where it is.
 */
export async function replaceLinks(attachments: Collection<AttachmentDoc>, target: LinkTarget, ids: readonly string[]): Promise<void> {
	const unlinked = { memoId: null, spaceId: null, memoSpaceReadable: false, memoPosition: 0, memoDeleted: false };
	await attachments.update({ memoId: target.id, _id: { $nin: [...ids] } }, { $set: unlinked }, { multi: true });
	for (const [position, id] of ids.entries()) {
		const linked = { memoId: target.id, spaceId: target.spaceId, memoSpaceReadable: target.spaceReadable, memoPosition: position, memoDeleted: false };
		await attachments.update({ _id: id, $or: [{ memoId: null }, { memoId: target.id }] }, { $set: linked });
	}
}
