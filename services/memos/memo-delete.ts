import type { Caller } from "../../shared/caller.js";
import { notFound } from "../../shared/errors.js";
import { assertCanDelete } from "./memo-access.js";
import { BULK_BATCH, changeEachMemo } from "./memo-bulk-changes.js";
import { completeCleanups, runCleanup } from "./memo-cleanup.js";
import { countedMemoChange, recountMemos } from "./memo-count.js";
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
	const marked = await countedMemoChange(deps.store.totals, now, async () => {
		const changed = await memos.findOneAndUpdate({ _id: id, deleteTime: null }, withOutboxEntry({ $set: { deleteTime: now, cleanup } }, outboxEntry("memo.deleted", now)));
		return { result: changed, added: changed === null ? 0 : -1 };
	});
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
 * attachments, and completes any clean-up left half-done (the repair pass), after recounting
 * the memos when a change of their count was left pending (memo-count.ts). Returns how many
 * memos it completed.
 */
export async function purgeExpiredMemos(deps: MemosDeps, now: number): Promise<number> {
	await recountMemos(deps.store.totals, deps.store.memos, now);
	await deps.store.memos.update({ deleteTime: { $lt: now - DELETED_RETENTION_MS } }, { $set: { cleanup: "purge" } }, { multi: true });
	return completeCleanups(deps);
}

/**
 * For DeleteUser (contract 2.4): the user's reactions, share links, shortcuts and the notifications they
 * received or sent (as upstream), and their memos purged
 * as with `force` (others' comments on them survive as ordinary memos). Each memo not yet deleted is
 * deleted as DeleteMemo deletes one, its deletion told to webhooks and live streams, a bounded batch
 * at a time (memo-bulk-changes.ts); each reaction on another's memo is told as DeleteMemoReaction
 * tells one. Idempotent: a retry after a crash deletes the memos left.
 */
export async function deleteUserData(deps: MemosDeps, userId: string, actor: Caller | null, now: number): Promise<void> {
	const { store } = deps;
	await removeReactionsOf(deps, userId, actor, now);
	await store.shares.remove({ creatorId: userId }, { multi: true });
	await store.shortcuts.remove({ userId }, { multi: true });
	await store.notifications.remove({ recipientId: userId }, { multi: true });
	await store.notifications.remove({ senderId: userId }, { multi: true });
	// The mark and the deletion in one write, so that no memo is deleted without its clean-up pending
	// (nor purged while the count of memos, memo-count.ts, still has it).
	const deleteLive = async () => {
		const deleted = await changeEachMemo(deps, { select: { creatorId: userId, deleteTime: null }, write: () => ({ update: { $set: { deleteTime: now, cleanup: "purge" } } }), change: "memo.deleted", actor, now });
		return { result: undefined, added: -deleted };
	};
	await countedMemoChange(store.totals, now, deleteLive);
	// Those deleted before were told then: purged now, silently.
	await store.memos.update({ creatorId: userId }, { $set: { cleanup: "purge" } }, { multi: true });
	await completeCleanups(deps);
}

/** The user's reactions, a batch at a time; each one on another user's memo still there is announced as removed. */
async function removeReactionsOf(deps: MemosDeps, userId: string, actor: Caller | null, now: number): Promise<void> {
	const { store } = deps;
	for (;;) {
		const reactions = await store.reactions.find({ creatorId: userId }, { limit: BULK_BATCH });
		if (reactions.length === 0) return;
		await store.reactions.remove({ _id: { $in: reactions.map(reaction => reaction._id) } }, { multi: true });
		const memos = await store.memos.find({ _id: { $in: [...new Set(reactions.map(reaction => reaction.memoId))] }, deleteTime: null });
		for (const memo of memos) {
			// Their own memos are deleted next, which tells their readers.
			if (memo.creatorId !== userId) await deps.announce(memoEvents.reactionDeleted, memoChangeEvent(memo, actor, now));
		}
	}
}
