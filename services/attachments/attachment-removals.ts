import type { AttachmentDoc } from "./attachment-doc.js";
import type { AttachmentsDeps } from "./attachments-deps.js";
import type { RemovalDoc } from "./removal-doc.js";
import { beginTotalsChange, endTotalsChange } from "./stored-totals.js";

/**
 * Removing attachments spans the records, the counters (stored-totals.ts) and the blob store,
 * so it cannot be atomic; it is made safe by ordering, idempotent steps and a repair pass
 * (issue 21), on both store adapters alike:
 * 1. Each removal is written down first (collection `attachment_removals`: the record's id,
 *    its blob key and size); nothing readers see has changed yet.
 * 2. The records go, each only if it still holds that blob (an id may be re-used), counted out.
 *    Readers now see the attachments gone; their bytes are no longer reachable.
 * 3. The bytes go, then the entries.
 * Readers never meet a record whose bytes are gone, and a crash between the steps leaves the
 * entries: `completeRemovals` (at start-up and every sweep) finds them through their `since`
 * index, a bounded batch at a time, and runs steps 2 and 3 again.
 */
/** Removals completed per repair query. */
const REPAIR_BATCH = 100;

/** Steps 2 and 3 of the removals `entries` (idempotent). */
async function finishRemovals(deps: AttachmentsDeps, entries: readonly RemovalDoc[]): Promise<void> {
	const { attachments, totals, removals } = deps.store;
	await beginTotalsChange(totals, deps.now());
	const removed = { count: 0, bytes: 0 };
	for (const entry of entries) {
		if ((await attachments.remove({ _id: entry._id, blobKey: entry.blobKey })) === 0) continue;
		removed.count -= 1;
		removed.bytes -= entry.size;
	}
	// A failed removal (which may still have happened) leaves the change pending for the recount.
	await endTotalsChange(totals, removed);
	for (const entry of entries) if (entry.blobKey !== null) await deps.blobs.delete(entry.blobKey);
	await removals.remove({ _id: { $in: entries.map(entry => entry._id) } }, { multi: true });
}

/** Removes records and then their bytes, as described above. */
export async function removeAttachments(deps: AttachmentsDeps, docs: readonly AttachmentDoc[]): Promise<void> {
	if (docs.length === 0) return;
	const since = deps.now();
	const entries = docs.map(doc => ({ _id: doc._id, blobKey: doc.blobKey, size: doc.size, since }));
	for (const { _id, ...entry } of entries) await deps.store.removals.update({ _id }, { $set: entry }, { upsert: true });
	await finishRemovals(deps, entries);
}

/** The repair pass: completes every removal left half-done. Returns how many it completed. */
export async function completeRemovals(deps: AttachmentsDeps): Promise<number> {
	let completed = 0;
	for (;;) {
		const pending = await deps.store.removals.find({ since: { $lte: deps.now() } }, { limit: REPAIR_BATCH });
		if (pending.length === 0) return completed;
		await finishRemovals(deps, pending);
		completed += pending.length;
	}
}
