import type { Caller } from "../../shared/caller.js";
import type { Filter } from "../../shared/store/document-store.js";

/**
 * Which attachments ListAttachments selects (contract 8.1): the caller's own, of memos not
 * soft-deleted. With a top-level `space == "spaces/{id}"` term (`spaceId` a string) and the
 * caller a member of that space, also the attachments of others' memos in the space that
 * the caller can read: those whose memo is readable in the space (`memoSpaceReadable`, a
 * NORMAL memo that is not PRIVATE, kept up to date by the memos service). As index-served
 * branches (shared/paging/list-page.ts); `memoDeleted` is always a boolean, so `false` is an
 * equality an index can seek.
 */
export function listBranches(caller: Caller, spaceId: string | null | undefined, isMember: boolean): Filter[] {
	const common: Filter = { memoDeleted: false };
	if (spaceId !== undefined) common.spaceId = spaceId;
	const own = { ...common, creatorId: caller.id };
	return typeof spaceId === "string" && isMember ? [own, { ...common, memoSpaceReadable: true }] : [own];
}
