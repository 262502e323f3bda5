import { formatName } from "../../shared/names.js";
import { toTimestamp } from "../../shared/proto-json.js";
import type { MemoDoc } from "./memo-doc.js";

export interface MemoJsonOptions {
	/** `users/{username}` of the creator; resolved per request (the doc keeps the user id). */
	creator: string;
	/** Soft-deleted memos carry `deleteTime` only in a ListMemos with showDeleted (contract 4.1). */
	withDeleteTime?: boolean;
	/** The memo's attachments in display order, from the attachments service. */
	attachments?: Record<string, unknown>[];
	/** MemoRelation and Reaction messages, oldest first (relations.ts, reactions.ts). */
	relations?: Record<string, unknown>[];
	reactions?: Record<string, unknown>[];
	/** GetSharedMemo leaves `parent` out (contract 7.11). */
	omitParent?: boolean;
}

/**
 * The Memo message (contract 4.1) with the default-emission rules of 1.3: repeated fields
 * always present, `space` null when unset, `location` and `parent` omitted when unset.
 */
export function toMemoJson(doc: MemoDoc, options: MemoJsonOptions): Record<string, unknown> {
	const json: Record<string, unknown> = {
		name: formatName("memo", doc._id),
		state: doc.state,
		creator: options.creator,
		createTime: toTimestamp(doc.createTime),
		updateTime: toTimestamp(doc.updateTime),
		content: doc.content,
		visibility: doc.visibility,
		tags: [...doc.tags],
		pinned: doc.pinned,
		attachments: options.attachments ?? [],
		relations: options.relations ?? [],
		reactions: options.reactions ?? [],
		property: { ...doc.property }
	};
	if (doc.parentId !== null && doc.parentId !== undefined && options.omitParent !== true) json.parent = formatName("memo", doc.parentId);
	json.snippet = doc.snippet;
	if (doc.location !== null && doc.location !== undefined) json.location = { ...doc.location };
	json.space = doc.spaceId === null || doc.spaceId === undefined ? null : formatName("space", doc.spaceId);
	if (options.withDeleteTime === true && typeof doc.deleteTime === "number") json.deleteTime = toTimestamp(doc.deleteTime);
	return json;
}
