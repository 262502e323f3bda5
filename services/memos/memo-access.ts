import type { Caller } from "../../shared/caller.js";
import { notFound, permissionDenied, unauthenticated } from "../../shared/errors.js";
import type { MemoDoc } from "./memo-doc.js";

const memoNotFound = (id: string) => notFound(`memo "memos/${id}" not found`);

/**
 * Who can read a NORMAL memo (contract 3.2). SPACE memos need a membership, which no caller
 * has until spaces exist.
 */
export function canRead(memo: MemoDoc, caller: Caller | null): boolean {
	if (caller !== null && caller.id === memo.creatorId) return true;
	switch (memo.visibility) {
		case "PUBLIC":
			return true;
		case "PROTECTED":
			return caller !== null;
		default:
			return false;
	}
}

/**
 * The read rule of contract 1.10, in its order: missing or deleted, then archived and not
 * the creator's (NOT_FOUND, admins included), then readable, then anonymous
 * (UNAUTHENTICATED), then PERMISSION_DENIED.
 */
export function assertReadable(memo: MemoDoc | null, id: string, caller: Caller | null): asserts memo is MemoDoc {
	if (memo === null || memo.deleteTime !== null) throw memoNotFound(id);
	if (memo.state === "ARCHIVED" && caller?.id !== memo.creatorId) throw memoNotFound(id);
	if (canRead(memo, caller)) return;
	if (caller === null) throw unauthenticated();
	throw permissionDenied(`no read access to memo "memos/${id}"`);
}

/**
 * Update (contract 3.3, 7.5): the memo must exist and not be deleted; then only its creator
 * or an instance ADMIN. Writes do not mask existence (1.10).
 */
export function assertCanUpdate(memo: MemoDoc | null, id: string, caller: Caller): asserts memo is MemoDoc {
	if (memo === null || memo.deleteTime !== null) throw memoNotFound(id);
	if (caller.id !== memo.creatorId && caller.role !== "ADMIN") {
		throw permissionDenied(`only the creator or an admin may update memo "memos/${id}"`);
	}
}

/**
 * Delete (contract 3.3, 7.6): a purge (`force`) reaches soft-deleted memos too, a soft
 * delete of a deleted memo is NOT_FOUND. Space ADMINs join the allowed callers with spaces.
 */
export function assertCanDelete(memo: MemoDoc | null, id: string, caller: Caller, force: boolean): asserts memo is MemoDoc {
	if (memo === null || (!force && memo.deleteTime !== null)) throw memoNotFound(id);
	if (caller.id !== memo.creatorId && caller.role !== "ADMIN") {
		throw permissionDenied(`only the creator or an admin may delete memo "memos/${id}"`);
	}
}
