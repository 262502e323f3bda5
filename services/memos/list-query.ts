import type { Caller } from "../../shared/caller.js";
import type { Collection, Filter } from "../../shared/store/document-store.js";
import type { MemoDoc, MemoState } from "./memo-doc.js";
import { readableBranches } from "./readable-query.js";

/**
 * The ListMemos candidates of contract 7.2 as index-served branches (none when nothing can
 * match: an anonymous caller asking for archived memos).
 *
 * `spaceIds` are the spaces the caller belongs to. Comments (`parentId` set) are never candidates. Soft-deleted memos are candidates only
 * with `showDeleted` and only the caller's own (rule 3: a deleted memo is its creator's trash, never shown to anyone else,
 * instance ADMINs included), judged as if they were not deleted.
 */
export function candidateBranches(caller: Caller | null, state: MemoState, showDeleted: boolean, spaceIds: readonly string[] = []): Filter[] {
	const common: Filter = { parentId: null, state, deleteTime: null };
	const branches = state === "ARCHIVED" ? (caller === null ? [] : [{ ...common, creatorId: caller.id }]) : readableBranches(common, caller, spaceIds);
	if (!showDeleted || caller === null) return branches;
	// The memos indexes continue `deleteTime: null` with the owner and the sort keys; the caller's
	// soft-deleted memos (kept until the purge) are a branch of their own, a range on deleteTime
	// read through the (creatorId, deleteTime) index and sorted apart (memos-store.ts).
	return [...branches, { ...common, creatorId: caller.id, deleteTime: { $gt: 0 } }];
}

/** The distinct tags of the memos of `branches`, for the filters that decide tags one by one (filter/tag-exists.ts). */
export async function candidateTags(memos: Collection<MemoDoc>, branches: Filter[]): Promise<string[]> {
	if (branches.length === 0) return [];
	const docs = await memos.find(branches.length === 1 ? (branches[0] as Filter) : { $or: branches }, { projection: { tags: 1 } });
	return [...new Set(docs.flatMap(doc => doc.tags ?? []))];
}
