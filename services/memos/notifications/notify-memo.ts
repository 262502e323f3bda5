import { generateId } from "../../../shared/ids.js";
import { DuplicateKeyError } from "../../../shared/store/document-store.js";
import { mentionedUsernames } from "../content/mentions.js";
import type { MemoDoc } from "../memo-doc.js";
import type { MemosDeps } from "../memos-deps.js";
import { candidateIds, planNotifications } from "./plan-notifications.js";

/**
 * Notifications are made by the memos service itself, right after the save that calls for
 * them, rather than by a consumer of the broker's memo events: the rules need the memo's
 * content, its parent and the read rule, which this service owns, and an event lost on the
 * way (Moleculer events are fire-and-forget) would lose its notifications for good. The
 * crash window between the memo's write and the notifications' writes is closed the way
 * deletions close theirs (memo-cleanup.ts):
 * 1. The save that may notify someone (a comment, content with a mention: `mayNotify`) writes
 *    `notifyPending` (the save's time) in the memo's own document, in the same write.
 * 2. The notifications are planned from the memo as stored (plan-notifications.ts) and
 *    inserted; a unique key per (recipient, memo, kind) makes a second run add nothing.
 * 3. The mark is cleared, if no later save has set a newer one.
 * A failure or a crash before 3 leaves the mark; `notifyPendingMemos` (every minute, on
 * every replica) finds marked memos older than a minute through the
 * `notifyPending` index, a bounded batch at a time, and runs 2 and 3 again.
 */

/** Memos whose mark is younger than this are left to the request that is still making their notifications. */
export const NOTIFY_REPAIR_AGE_MS = 60_000;
const REPAIR_BATCH = 100;

/** Whether a memo saved with `content` may notify someone: it is a comment, or it mentions a username. */
export function mayNotify(content: string, parentId: string | null): boolean {
	return parentId !== null || mentionedUsernames(content).length > 0;
}

/**
 * Makes the notifications `memo` (as stored) calls for and clears its mark; at most two calls
 * to other services (the mentioned users; for a SPACE memo, which of them are members).
 * Returns how many notifications were new.
 */
export async function notifyMemo(deps: MemosDeps, memo: MemoDoc, now: number): Promise<number> {
	const { memos, notifications } = deps.store;
	const usernames = mentionedUsernames(memo.content);
	const parent = memo.parentId === null ? null : await memos.findOne({ _id: memo.parentId, deleteTime: null });
	const mentioned = usernames.length === 0 ? [] : await deps.peers.users(usernames);
	const candidates = memo.visibility === "SPACE" && memo.spaceId !== null ? candidateIds(memo, parent, mentioned) : [];
	const members = candidates.length === 0 ? {} : (await deps.peers.spaceMembers(memo.spaceId as string, candidates)).roles;
	let created = 0;
	for (const planned of planNotifications({ memo, parent, mentioned, spaceMemberIds: new Set(Object.keys(members)) })) {
		try {
			await notifications.insert({ _id: generateId(), senderId: memo.creatorId, status: "UNREAD", createTime: now, ...planned });
			created++;
		} catch (err) {
			if (!(err instanceof DuplicateKeyError)) throw err;
		}
	}
	if (memo.notifyPending !== undefined) await memos.update({ _id: memo._id, notifyPending: memo.notifyPending }, { $unset: { notifyPending: 1 } });
	return created;
}

/**
 * After a save stored with its mark: the notifications now, or, when that fails, by the
 * repair pass later (the failure is logged, the request that saved the memo still succeeds).
 */
export async function notifySaved(deps: MemosDeps, memo: MemoDoc, now: number): Promise<void> {
	if (memo.notifyPending === undefined) return;
	try {
		await notifyMemo(deps, memo, now);
	} catch (err) {
		deps.leftForRepair(err, `notifications of memo "memos/${memo._id}"`);
	}
}

/** The repair pass: runs the notifications of every memo whose mark is older than NOTIFY_REPAIR_AGE_MS. Returns how many memos it handled. */
export async function notifyPendingMemos(deps: MemosDeps, now: number): Promise<number> {
	let handled = 0;
	for (;;) {
		const pending = await deps.store.memos.find({ notifyPending: { $lte: now - NOTIFY_REPAIR_AGE_MS } }, { limit: REPAIR_BATCH });
		if (pending.length === 0) return handled;
		for (const memo of pending) await notifyMemo(deps, memo, now);
		handled += pending.length;
	}
}
