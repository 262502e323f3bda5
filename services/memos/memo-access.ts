import type { Caller } from "../../shared/caller.js";
import { notFound, permissionDenied, unauthenticated } from "../../shared/errors.js";
import type { MemoDoc } from "./memo-doc.js";
import { isSpaceAdminOf, NO_SPACES, type SpaceRoles } from "./memo-spaces.js";

const memoNotFound = (id: string) => notFound(`memo "memos/${id}" not found`);

/**
 * Who can read a NORMAL memo (contract 3.2). SPACE memos: members of the memo's space, per
 * the caller's memberships (`spaces`; none given reads as none held), never instance ADMINs
 * as such (3.4).
 */
export function canRead(memo: MemoDoc, caller: Caller | null, spaces: SpaceRoles = NO_SPACES): boolean {
	return visibleTo(memo, caller?.id ?? null, memo.spaceId !== null && spaces.has(memo.spaceId));
}

/** Contract 3.2 for a reader known by id (null: anonymous) and whether they belong to the memo's space. */
function visibleTo(memo: MemoDoc, readerId: string | null, inMemoSpace: boolean): boolean {
	if (readerId !== null && readerId === memo.creatorId) return true;
	switch (memo.visibility) {
		case "PUBLIC":
			return true;
		case "PROTECTED":
			return readerId !== null;
		case "SPACE":
			return readerId !== null && memo.spaceId !== null && inMemoSpace;
		default:
			return false;
	}
}

/** Whether the read rule of contract 1.10 lets `caller` read `memo` (the answer of assertReadable as a boolean). */
export function mayRead(memo: MemoDoc | null | undefined, caller: Caller | null, spaces: SpaceRoles = NO_SPACES): memo is MemoDoc {
	return memo !== null && memo !== undefined && memo.deleteTime === null && (memo.state !== "ARCHIVED" || caller?.id === memo.creatorId) && canRead(memo, caller, spaces);
}

/**
 * The read rule of 1.10 as a yes or no, for a signed-in reader who is not the caller of a
 * request (the live stream's, contract 17), known by id and whether they belong to the memo's space.
 */
export function readableBy(memo: MemoDoc, readerId: string, inMemoSpace: boolean): boolean {
	if (memo.deleteTime !== null) return false;
	if (memo.state === "ARCHIVED" && readerId !== memo.creatorId) return false;
	return visibleTo(memo, readerId, inMemoSpace);
}

/**
 * The read rule of contract 1.10, in its order: missing or deleted, then archived and not
 * the creator's (NOT_FOUND, admins included), then readable, then anonymous
 * (UNAUTHENTICATED), then PERMISSION_DENIED.
 */
export function assertReadable(memo: MemoDoc | null, id: string, caller: Caller | null, spaces: SpaceRoles = NO_SPACES): asserts memo is MemoDoc {
	if (memo === null || memo.deleteTime !== null) throw memoNotFound(id);
	if (memo.state === "ARCHIVED" && caller?.id !== memo.creatorId) throw memoNotFound(id);
	if (canRead(memo, caller, spaces)) return;
	if (caller === null) throw unauthenticated();
	throw permissionDenied(`no read access to memo "memos/${id}"`);
}

/**
 * Update, SetMemoRelations and the share-link operations (contract 3.1, 3.3, 7.5): the memo
 * must exist and not be deleted; then only its creator or an instance ADMIN. Writes do not
 * mask existence (1.10), but an ADMIN's write never reveals a memo the ADMIN cannot read: it
 * answers as the read would (PERMISSION_DENIED, or NOT_FOUND when archived).
 */
export function assertCanUpdate(memo: MemoDoc | null, id: string, caller: Caller, spaces: SpaceRoles): asserts memo is MemoDoc {
	if (memo === null || memo.deleteTime !== null) throw memoNotFound(id);
	if (caller.id === memo.creatorId) return;
	if (caller.role !== "ADMIN") throw permissionDenied(`only the creator or an admin may change memo "memos/${id}"`);
	assertReadable(memo, id, caller, spaces);
}

/**
 * Delete (contract 3.3, 7.6): a purge (`force`) reaches soft-deleted memos too, a soft
 * delete of a deleted memo is NOT_FOUND. An ADMIN of the memo's space may delete it too (3.4).
 */
export function assertCanDelete(memo: MemoDoc | null, id: string, caller: Caller, force: boolean, spaces: SpaceRoles = NO_SPACES): asserts memo is MemoDoc {
	if (memo === null || (!force && memo.deleteTime !== null)) throw memoNotFound(id);
	if (caller.id !== memo.creatorId && caller.role !== "ADMIN" && !isSpaceAdminOf(memo, spaces)) {
		throw permissionDenied(`only the creator, an admin or an ADMIN of its space may delete memo "memos/${id}"`);
	}
}
