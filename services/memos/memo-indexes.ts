import type { Collection, IndexSpec } from "../../shared/store/document-store.js";
import type { MemoDoc } from "./memo-doc.js";

/**
 * Every index of the memos collection, declared once. A list branch (readable-query.ts,
 * list-query.ts) is an equality prefix — parentId, state, deleteTime, then one owner group —
 * and each index continues it with the sort keys of one orderBy (contract 6.4), ending in the
 * unique tie-breaker, so a page reads at most pageSize + 1 entries per branch. A store scans
 * an index backwards for the opposite direction of every key.
 */
const PREFIX = { parentId: 1, state: 1, deleteTime: 1 } as const;
const OWNER_GROUPS: Record<string, 1>[] = [{ creatorId: 1 }, { visibility: 1 }, { visibility: 1, spaceId: 1 }];
const SORT_TAILS: Record<string, -1>[] = [
	{ createTime: -1, seq: -1 },
	{ updateTime: -1, seq: -1 },
	{ pinned: -1, createTime: -1, seq: -1 },
	{ pinned: -1, updateTime: -1, seq: -1 },
	{ pinned: -1, seq: -1 },
	{ _id: -1 }
];

export const MEMO_INDEXES: readonly IndexSpec[] = [
	...OWNER_GROUPS.flatMap(owner => SORT_TAILS.map(tail => ({ fields: { ...PREFIX, ...owner, ...tail } }))),
	// A memo's comments in relation-list order (relations-store.ts).
	{ fields: { parentId: 1, deleteTime: 1, createTime: 1, _id: 1 } },
	// Clean-ups: the purge of expired deletions, a space's memos, a deleted user's memos.
	{ fields: { deleteTime: 1 } },
	{ fields: { spaceId: 1, deleteTime: 1 } },
	{ fields: { creatorId: 1 } }
];

export async function ensureMemoIndexes(memos: Collection<MemoDoc>): Promise<void> {
	for (const spec of MEMO_INDEXES) await memos.ensureIndex(spec);
}
