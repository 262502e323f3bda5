import { applyLinks } from "./memo-attachment-links.js";
import type { MemoDoc } from "./memo-doc.js";
import { relayPendingChanges } from "./memo-outbox.js";
import type { MemosDeps } from "./memos-deps.js";
import { purgeMemoExtras } from "./memos-store.js";
import { detachMemos } from "./relations.js";

/**
 * A deleted memo's clean-up spans collections and the attachments service, so it cannot be
 * atomic; it is made safe by ordering, idempotent steps and a repair pass (issue 21), on both
 * store adapters alike, without MongoDB transactions:
 * 1. One single-document write marks the memo: `deleteTime` (every reader treats the memo as
 *    deleted from then on, and the attachment readers ask the memos service) and `cleanup`,
 *    naming what is left to do.
 * 2. The steps run, each idempotent: relations detached, then for "hide" (soft delete) the
 *    attachments hidden, for "purge" reactions, share links, attachments and their bytes removed.
 * 3. Last, the mark is cleared ("hide") or the memo document itself removed ("purge"), once
 *    the memo's outbox is relayed (memo-outbox.ts): no change goes without its webhook deliveries.
 * A crash between the steps leaves the mark; `completeCleanups` (at start-up and with every
 * purge round) finds marked memos through the `cleanup` index, a bounded batch at a time, and
 * runs the steps again.
 */
export type Cleanup = NonNullable<MemoDoc["cleanup"]>;

/** Memos completed per repair query. */
const REPAIR_BATCH = 100;

/** Runs (again) the steps after the mark for memos marked with `kind`. */
export async function runCleanup(deps: MemosDeps, kind: Cleanup, ids: string[]): Promise<void> {
	if (ids.length === 0) return;
	const { memos } = deps.store;
	await detachMemos(deps.store, ids);
	if (kind === "hide") {
		await deps.peers.hideAttachments(ids);
		await memos.update({ _id: { $in: ids }, cleanup: "hide" }, { $set: { cleanup: null } }, { multi: true });
		return;
	}
	await relayPendingChanges(deps, ids);
	await purgeMemoExtras(deps.store, ids);
	await deps.peers.deleteAttachments(ids);
	await memos.remove({ _id: { $in: ids } }, { multi: true });
}

/**
 * The repair pass: completes every clean-up left half-done, and the attachment links of
 * memos written with their mark (memo-attachment-links.ts). Returns how many memos it completed.
 */
export async function completeCleanups(deps: MemosDeps): Promise<number> {
	let completed = 0;
	const { memos } = deps.store;
	for (;;) {
		const pending = await memos.find({ cleanup: { $in: ["hide", "purge"] } }, { projection: { _id: 1, cleanup: 1 }, limit: REPAIR_BATCH });
		if (pending.length === 0) break;
		for (const kind of ["purge", "hide"] as const) {
			await runCleanup(deps, kind, pending.filter(memo => memo.cleanup === kind).map(memo => memo._id));
		}
		completed += pending.length;
	}
	for (;;) {
		const marked = await memos.find({ cleanup: "link" }, { limit: REPAIR_BATCH });
		if (marked.length === 0) return completed;
		for (const memo of marked) await applyLinks(deps, memo);
		completed += marked.length;
	}
}
