import type { Caller } from "../../shared/caller.js";
import type { Filter, Update } from "../../shared/store/document-store.js";
import type { MemoDoc } from "./memo-doc.js";
import { memoChangeEvent } from "./memo-events.js";
import { outboxEntry, relayPendingChanges, withOutboxEntry } from "./memo-outbox.js";
import { memoEvents } from "./memos.contract.js";
import type { MemosDeps } from "./memos-deps.js";

/**
 * A change made to many memos at once (DeleteUser's purge of a user's memos, DeleteSpace's
 * detachment of a space's memos), made as the single-memo paths make theirs, a bounded batch at
 * a time: each memo in its own write that carries its outbox entry (memo-outbox.ts), then its
 * change event, then the batch's entries relayed to the webhooks. A crash midway leaves every
 * memo either changed with its entry (the relay pass delivers it) or untouched (a retry of the
 * operation changes it): nothing is reported twice beyond the relay's at-least-once.
 */

/** Memos changed, announced and relayed per batch: what is held in memory and told at once. */
export const BULK_BATCH = 100;

const EVENTS = { "memo.updated": memoEvents.updated, "memo.deleted": memoEvents.deleted } as const;

export interface BulkChange {
	/** The memos still to change; the write takes a memo out of it, so the batches come to an end. */
	select: Filter;
	/** The write of one memo as found, and what else it must still hold for the write to apply (else the next batch finds it again). */
	write(memo: MemoDoc): { unchanged?: Filter; update: Update };
	/** What webhooks and live streams are told of each memo. */
	change: keyof typeof EVENTS;
	/** Who made the change; null when no user's request did. */
	actor: Caller | null;
	now: number;
}

/** Applies `spec` to every memo it selects; returns how many it changed. */
export async function changeEachMemo(deps: MemosDeps, spec: BulkChange): Promise<number> {
	const { memos } = deps.store;
	let changed = 0;
	for (;;) {
		const found = await memos.find(spec.select, { limit: BULK_BATCH });
		if (found.length === 0) return changed;
		const batch: MemoDoc[] = [];
		for (const memo of found) {
			const { unchanged, update } = spec.write(memo);
			const written = await memos.findOneAndUpdate({ ...spec.select, ...unchanged, _id: memo._id }, withOutboxEntry(update, outboxEntry(spec.change, spec.now)));
			if (written !== null) batch.push(written);
		}
		for (const memo of batch) await deps.announce(EVENTS[spec.change], memoChangeEvent(memo, spec.actor, spec.now));
		if (batch.length === 0) continue;
		// Rendered as their creators see them; a failure leaves the entries to the relay pass (and a purge relays them first).
		await relayPendingChanges(
			deps,
			batch.map(memo => memo._id)
		).catch((err: unknown) => deps.leftForRepair(err, "relaying a batch of memo changes to webhooks"));
		changed += batch.length;
	}
}
