import type { Caller } from "../../shared/caller.js";
import type { Filter } from "../../shared/store/document-store.js";
import type { MemoState } from "./memo-doc.js";
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
