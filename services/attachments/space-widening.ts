import type { Caller } from "../../shared/caller.js";
import type { Filter } from "../../shared/store/document-store.js";

/**
 * Which attachments ListAttachments selects (contract 8.1): the caller's own, of memos not
 * soft-deleted. With a top-level `space == "spaces/{id}"` term (`spaceId` a string) and the
 * caller a member of that space, also the attachments of others' memos in the space that
 * the caller can read: those whose memo is readable in the space (`memoSpaceReadable`, a
 * NORMAL memo that is not PRIVATE, kept up to date by the memos service).
 */
export function listScope(caller: Caller, spaceId: string | null | undefined, isMember: boolean): Filter {
	const scope: Filter = { memoDeleted: { $ne: true } };
	if (spaceId !== undefined) scope.spaceId = spaceId;
	if (typeof spaceId === "string" && isMember) scope.$or = [{ creatorId: caller.id }, { memoSpaceReadable: true }];
	else scope.creatorId = caller.id;
	return scope;
}
