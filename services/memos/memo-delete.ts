import type { Caller } from "../../shared/caller.js";
import { notFound } from "../../shared/errors.js";
import { assertCanDelete } from "./memo-access.js";
import { completeCleanups, runCleanup } from "./memo-cleanup.js";
import { memoChangeEvent } from "./memo-events.js";
import { memoEvents } from "./memos.contract.js";
import { outboxEntry, withOutboxEntry } from "./memo-outbox.js";
import { memoResponses } from "./memo-responses.js";
import type { MemosDeps } from "./memos-deps.js";

/** Soft-deleted memos are purged this long after deletion (contract 7.1, 14). */
export const DELETED_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * DeleteMemo (contract 7.6): soft delete, or purge with `force`; marked first, cleaned up after
 * (memo-cleanup.ts). Deleting a memo not yet deleted is a change webhooks report (memo-outbox.ts),
 * relayed with the memo as it was deleted before the clean-up takes its parts away.
 */
export async function deleteMemo(deps: MemosDeps, caller: Caller, id: string, force: boolean, now: number): Promise<void> {
	const { memos } = deps.store;
	const memo = await memos.findOne({ _id: id });
	assertCanDelete(memo, id, caller, force, await deps.peers.spacesOf(caller));
	const cleanup = force ? "purge" : "hide";
	const marked = await memos.findOneAndUpdate({ _id: id, deleteTime: null }, withOutboxEntry({ $set: { deleteTime: now, cleanup } }, outboxEntry("memo.deleted", now)));
	if (marked === null && !force) throw notFound(`memo "memos/${id}" not found`);
	// Already deleted: purged now.
	if (marked === null) await memos.update({ _id: id }, { $set: { cleanup } });
	// Announced once marked: the memo is gone for its readers, whatever the clean-up does next.
	await deps.announce(memoEvents.deleted, memoChangeEvent(memo, caller, now));
	if (marked !== null) await deps.relayNow([marked], await memoResponses(deps, caller, [marked]));
	await runCleanup(deps, cleanup, [id]);
}

/**
 * Erases memos soft-deleted more than the retention period before `now`, with their
 * attachments, and completes any clean-up left half-done (the repair pass). Returns how many
 * memos it completed.
 */
export async function purgeExpiredMemos(deps: MemosDeps, now: number): Promise<number> {
	await deps.store.memos.update({ deleteTime: { $lt: now - DELETED_RETENTION_MS } }, { $set: { cleanup: "purge" } }, { multi: true });
	return completeCleanups(deps);
}

/**
 * For DeleteUser (contract 2.4): the user's reactions, share links, shortcuts and the notifications they
 * received or sent (as upstream), and their memos purged
 * as with `force` (others' comments on them survive as ordinary memos). Idempotent.
 */
export async function deleteUserData(deps: MemosDeps, userId: string, now: number): Promise<void> {
	const { store } = deps;
	await store.reactions.remove({ creatorId: userId }, { multi: true });
	await store.shares.remove({ creatorId: userId }, { multi: true });
	await store.shortcuts.remove({ userId }, { multi: true });
	await store.notifications.remove({ recipientId: userId }, { multi: true });
	await store.notifications.remove({ senderId: userId }, { multi: true });
	// Marked before they turn deleted, so that no memo is deleted without its clean-up pending.
	await store.memos.update({ creatorId: userId }, { $set: { cleanup: "purge" } }, { multi: true });
	await store.memos.update({ creatorId: userId, deleteTime: null }, { $set: { deleteTime: now } }, { multi: true });
	await completeCleanups(deps);
}
