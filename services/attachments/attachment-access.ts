import type { Caller } from "../../shared/caller.js";
import { notFound, permissionDenied, unauthenticated } from "../../shared/errors.js";
import type { MemoAccessInfo } from "../memos/memos.contract.js";
import type { AttachmentDoc } from "./attachment-doc.js";

export const attachmentNotFound = (id: string) => notFound(`attachment "attachments/${id}" not found`);

/**
 * Reading an attachment (contract 3.3, 8.1): unlinked → its creator or an instance ADMIN;
 * linked → the read rule of the memo (1.10), which the memos service evaluated (`memo`
 * undefined: the memo is gone or deleted, NOT_FOUND).
 */
export function assertCanRead(doc: AttachmentDoc | null, id: string, caller: Caller | null, memo: MemoAccessInfo | undefined): asserts doc is AttachmentDoc {
	if (doc === null) throw attachmentNotFound(id);
	if (doc.memoId === null) {
		if (caller === null) throw unauthenticated();
		if (caller.id !== doc.creatorId && caller.role !== "ADMIN") throw permissionDenied(`no read access to attachment "attachments/${id}"`);
		return;
	}
	if (memo === undefined || memo.read === "NOT_FOUND") throw attachmentNotFound(id);
	if (memo.read === "UNAUTHENTICATED") throw unauthenticated();
	if (memo.read === "PERMISSION_DENIED") throw permissionDenied(`no read access to attachment "attachments/${id}"`);
}

/** Update and delete (contract 3.3, 8.3): its creator or an instance ADMIN. */
export function assertCanWrite(doc: AttachmentDoc | null, id: string, caller: Caller): asserts doc is AttachmentDoc {
	if (doc === null) throw attachmentNotFound(id);
	if (caller.id !== doc.creatorId && caller.role !== "ADMIN") {
		throw permissionDenied(`only the creator or an admin may change attachment "attachments/${id}"`);
	}
}
