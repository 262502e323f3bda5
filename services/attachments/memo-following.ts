import { removeAttachments } from "./attachment-removals.js";
import type { AttachmentsDeps } from "./attachments-deps.js";

/**
 * The attachments follow their memos, as the memos service reports: purged memos take their
 * attachments and bytes along (contract 7.6), soft-deleted ones hide them, a memo moved or
 * made (un)readable in its space carries them along (7.5, 8.1), a deleted space lets them go (9).
 */

export async function deleteForMemos(deps: AttachmentsDeps, memoIds: string[]): Promise<void> {
	if (memoIds.length === 0) return;
	await removeAttachments(deps, await deps.store.attachments.find({ memoId: { $in: memoIds } }));
}

export async function setMemosDeleted(deps: AttachmentsDeps, memoIds: string[], deleted: boolean): Promise<void> {
	if (memoIds.length === 0) return;
	await deps.store.attachments.update({ memoId: { $in: memoIds } }, { $set: { memoDeleted: deleted } }, { multi: true });
}

export async function followMemo(deps: AttachmentsDeps, memoId: string, spaceId: string | null, spaceReadable: boolean): Promise<void> {
	await deps.store.attachments.update({ memoId }, { $set: { spaceId, memoSpaceReadable: spaceReadable } }, { multi: true });
}

export async function leaveSpace(deps: AttachmentsDeps, spaceId: string): Promise<void> {
	await deps.store.attachments.update({ spaceId }, { $set: { spaceId: null, memoSpaceReadable: false } }, { multi: true });
}
