import type { Caller } from "../../shared/caller.js";
import type { Filter } from "../../shared/store/document-store.js";

/**
 * `common` narrowed to the memos `caller` may read (contract 3.2), as index-served branches
 * (shared/paging/list-page.ts): anonymous callers the PUBLIC ones; others their own, the PUBLIC
 * ones, the PROTECTED ones, and the SPACE ones of each space in `spaceIds` (the spaces they
 * belong to). Each branch is `common`'s equality fields plus one owner field group that a
 * memos index (memos-store.ts) continues with the sort keys.
 */
export function readableBranches(common: Filter, caller: Caller | null, spaceIds: readonly string[]): Filter[] {
	if (caller === null) return [{ ...common, visibility: "PUBLIC" }];
	return [
		{ ...common, creatorId: caller.id },
		{ ...common, visibility: "PUBLIC" },
		{ ...common, visibility: "PROTECTED" },
		...spaceIds.map(spaceId => ({ ...common, visibility: "SPACE", spaceId }))
	];
}
