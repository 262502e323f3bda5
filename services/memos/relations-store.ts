import type { Caller } from "../../shared/caller.js";
import { formatName } from "../../shared/names.js";
import type { Collection, Filter } from "../../shared/store/document-store.js";
import { canRead } from "./memo-access.js";
import { NO_SPACES, type SpaceRoles } from "./memo-spaces.js";
import type { MemoDoc } from "./memo-doc.js";

/**
 * Memo relations (contract 4.2, 7.8). REFERENCE relations are documents of `memo_relations`,
 * one per (memo, related memo), whose `_id` is made of the pair so that duplicates cannot
 * exist. A COMMENT relation is not stored apart: it is the comment memo's `parentId`, so
 * CreateMemoComment writes the comment and its relation in one insert and DeleteMemo drops
 * it with one update (contract 7.7: nothing can be half-written).
 */
export const MEMO_RELATIONS = "memo_relations";

export interface RelationDoc {
	/** `r:{memoId}:{relatedMemoId}`; ids never contain a colon. */
	_id: string;
	memoId: string;
	relatedMemoId: string;
	createTime: number;
	[key: string]: unknown;
}

export type RelationType = "REFERENCE" | "COMMENT";

/**
 * A relation as lists order it: oldest first by `t`, ties broken by `k`, a key unique among
 * all relations (`r:…` for a reference, `c:{commentId}` for a comment's relation).
 */
export interface RelationItem {
	t: number;
	k: string;
	type: RelationType;
	memoId: string;
	relatedMemoId: string;
}

export function referenceId(memoId: string, relatedMemoId: string): string {
	return `r:${memoId}:${relatedMemoId}`;
}

export function referenceItem(doc: RelationDoc): RelationItem {
	return { t: doc.createTime, k: doc._id, type: "REFERENCE", memoId: doc.memoId, relatedMemoId: doc.relatedMemoId };
}

/** The COMMENT relation a comment memo holds through its `parentId`. */
export function commentItem(comment: MemoDoc & { parentId: string }): RelationItem {
	return { t: comment.createTime, k: `c:${comment._id}`, type: "COMMENT", memoId: comment._id, relatedMemoId: comment.parentId };
}

/** Relation lists' order as a keyset sort over RelationItem, for their page tokens. */
export const RELATION_ORDER = { t: 1, k: 1 } as const;
export const RELATION_KEY_TYPES = { t: "number", k: "string" } as const;

/** The position after which a relation page starts (RELATION_ORDER's keys). */
export interface RelationPosition {
	t: number;
	k: string;
}

export function compareItems(a: RelationItem, b: RelationItem): number {
	if (a.t !== b.t) return a.t - b.t;
	return a.k < b.k ? -1 : a.k > b.k ? 1 : 0;
}

/**
 * Whether the caller may see a memo at the other end of a relation: the read rule of 1.10
 * without its error (deleted: no; archived: its creator only; else the visibility rules).
 */
export function readableBy(memo: MemoDoc | undefined, caller: Caller | null, spaces: SpaceRoles = NO_SPACES): boolean {
	if (memo === undefined || memo.deleteTime !== null) return false;
	if (memo.state === "ARCHIVED" && caller?.id !== memo.creatorId) return false;
	return canRead(memo, caller, spaces);
}

/** The MemoRelation message (contract 4.2); `docs` holds both ends. */
export function toRelationJson(item: RelationItem, docs: ReadonlyMap<string, MemoDoc>): Record<string, unknown> {
	const end = (id: string) => ({ name: formatName("memo", id), snippet: docs.get(id)?.snippet ?? "" });
	return { memo: end(item.memoId), relatedMemo: end(item.relatedMemoId), type: item.type };
}

/** Filters selecting the items after a position, for references (keyed by `_id`) and comments (keyed by `c:` + `_id`). */
function afterReference(after: RelationPosition): Filter {
	return { $or: [{ createTime: { $gt: after.t } }, { createTime: after.t, _id: { $gt: after.k } }] };
}

function afterComment(after: RelationPosition): Filter {
	// Every `c:` key sorts before every `r:` key, so past a reference no comment of the same time is left.
	const sameTime: Filter[] = after.k.startsWith("c:") ? [{ createTime: after.t, _id: { $gt: after.k.slice(2) } }] : [];
	return { $or: [{ createTime: { $gt: after.t } }, ...sameTime] };
}

/**
 * Up to `limit` relations touching `memo` (both directions, both types) after `after`, in
 * list order: one query on references, one on its comments, and its own COMMENT relation.
 */
export async function relationItemsAfter(
	relations: Collection<RelationDoc>,
	memos: Collection<MemoDoc>,
	memo: MemoDoc,
	after: RelationPosition | null,
	limit: number
): Promise<RelationItem[]> {
	// Three index-served branches (shared/paging/list-page.ts): each direction of references, and the comments.
	const branch = (filter: Filter, afterFilter: (position: RelationPosition) => Filter): Filter =>
		after === null ? filter : { $and: [filter, afterFilter(after)] };
	const order = { sort: { createTime: 1, _id: 1 } as const, limit };
	const [outgoing, incoming, commentDocs] = await Promise.all([
		relations.find(branch({ memoId: memo._id }, afterReference), order),
		relations.find(branch({ relatedMemoId: memo._id }, afterReference), order),
		memos.find(branch({ parentId: memo._id, deleteTime: null }, afterComment), order)
	]);
	const references = new Map([...outgoing, ...incoming].map(doc => [doc._id, doc]));
	const items = [...[...references.values()].map(referenceItem), ...commentDocs.map(doc => commentItem(doc as MemoDoc & { parentId: string }))];
	if (typeof memo.parentId === "string") {
		const own = commentItem(memo as MemoDoc & { parentId: string });
		if (after === null || compareItems(own, { ...own, t: after.t, k: after.k }) > 0) items.push(own);
	}
	return items.sort(compareItems).slice(0, limit);
}

/**
 * The relations of each memo of `docs` as memo responses carry them (contract 4.1): both
 * directions, only where the other memo is readable by the caller, oldest first. A fixed
 * number of queries whatever the number of memos.
 */
export async function relationsFor(
	relations: Collection<RelationDoc>,
	memos: Collection<MemoDoc>,
	docs: readonly MemoDoc[],
	caller: Caller | null,
	spaces: SpaceRoles = NO_SPACES
): Promise<Map<string, Record<string, unknown>[]>> {
	const result = new Map<string, Record<string, unknown>[]>();
	if (docs.length === 0) return result;
	const ids = docs.map(doc => doc._id);
	const [references, comments] = await Promise.all([
		relations.find({ $or: [{ memoId: { $in: ids } }, { relatedMemoId: { $in: ids } }] }),
		memos.find({ parentId: { $in: ids }, deleteTime: null })
	]);
	const items = [
		...references.map(referenceItem),
		...comments.map(doc => commentItem(doc as MemoDoc & { parentId: string })),
		...docs.filter(doc => typeof doc.parentId === "string").map(doc => commentItem(doc as MemoDoc & { parentId: string }))
	].sort(compareItems);
	const known = new Map<string, MemoDoc>();
	for (const doc of [...docs, ...comments]) known.set(doc._id, doc);
	const missing = [...new Set(items.flatMap(item => [item.memoId, item.relatedMemoId]))].filter(id => !known.has(id));
	if (missing.length > 0) for (const doc of await memos.find({ _id: { $in: missing } })) known.set(doc._id, doc);

	const wanted = new Set(ids);
	const seen = new Set<string>();
	for (const item of items) {
		for (const [self, other] of [
			[item.memoId, item.relatedMemoId],
			[item.relatedMemoId, item.memoId]
		] as const) {
			// A comment listed among the memos and found as a comment of another listed memo appears twice.
			if (!wanted.has(self) || seen.has(`${self}|${item.k}`) || !readableBy(known.get(other), caller, spaces)) continue;
			seen.add(`${self}|${item.k}`);
			const list = result.get(self) ?? [];
			list.push(toRelationJson(item, known));
			result.set(self, list);
		}
	}
	return result;
}
