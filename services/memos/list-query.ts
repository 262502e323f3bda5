import type { Caller } from "../../shared/caller.js";
import type { Filter } from "../../shared/store/document-store.js";
import type { MemoState } from "./memo-doc.js";
import { readableQuery } from "./readable-query.js";

/**
 * The ListMemos candidates of contract 7.2 as a store query, or null when nothing can match
 * (an anonymous caller asking for archived memos). Each branch of the `$or` starts with
 * equality fields, so MongoDB can answer it from the compound indexes the service declares
 * and merge the branches in sort order.
 *
 * `spaceIds` are the spaces the caller belongs to. Comments (`parentId` set) are never candidates. Soft-deleted memos are candidates only
 * with `showDeleted`, judged as if they were not deleted.
 */
export function candidateQuery(caller: Caller | null, state: MemoState, showDeleted: boolean, spaceIds: readonly string[] = []): Filter | null {
	const common: Filter = { parentId: null, state };
	if (!showDeleted) common.deleteTime = null;
	if (state === "ARCHIVED") return caller === null ? null : { ...common, creatorId: caller.id };
	return readableQuery(common, caller, spaceIds);
}
