import type { Caller } from "../../shared/caller.js";
import type { Collection, Filter } from "../../shared/store/document-store.js";
import type { MemoDoc, MemoState } from "./memo-doc.js";
import { readableBranches } from "./readable-query.js";

/**
 * The ListMemos candidates of contract 7.2 as index-served branches (none when nothing can
 * match: an anonymous caller asking for archived memos).
 *
 * `spaceIds` are the spaces the caller belongs to. Comments (`parentId` set) are never candidates. Soft-deleted memos are candidates only
 * with `showDeleted`, judged as if they were not deleted.
 */
export function candidateBranches(caller: Caller | null, state: MemoState, showDeleted: boolean, spaceIds: readonly string[] = []): Filter[] {
	const common: Filter = { parentId: null, state };
	if (!showDeleted) common.deleteTime = null;
	if (state === "ARCHIVED") return caller === null ? [] : [{ ...common, creatorId: caller.id }];
	return readableBranches(common, caller, spaceIds);
}

/** The distinct tags of the memos of `branches`, for the filters that decide tags one by one (filter/tag-exists.ts). */
export async function candidateTags(memos: Collection<MemoDoc>, branches: Filter[]): Promise<string[]> {
	if (branches.length === 0) return [];
	const docs = await memos.find(branches.length === 1 ? (branches[0] as Filter) : { $or: branches }, { projection: { tags: 1 } });
	return [...new Set(docs.flatMap(doc => doc.tags ?? []))];
}
