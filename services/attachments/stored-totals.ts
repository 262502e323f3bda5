import { DuplicateKeyError, type Collection, type Doc } from "../../shared/store/document-store.js";
import { SETTLE_MS } from "../../shared/store/settle-time.js";
import type { AttachmentDoc } from "./attachment-doc.js";

/**
 * How many attachments are stored and their bytes (InstanceStats, contract 4.11), kept as
 * counters in one document so that reading them costs one lookup however many attachments
 * exist (issue 21). The counters change apart from the records, without transactions:
 * - every change of the records is counted in `pendingChanges` (with `changedAt`) before its
 *   record write and counted out, with its deltas, in one write after it;
 * - a crash or a failed write between the two leaves the change pending and the counters
 *   possibly off by it; the repair pass (`recountTotals`, at start-up and every sweep) recounts
 *   them from the records once no change has begun for SETTLE_MS, and writes the recount only
 *   if nothing changed the counters while it read.
 * A store from before the counters gets its document at the first start, pending since the
 * epoch, so that the first repair pass counts what is there.
 */
export interface TotalsDoc extends Doc {
	count: number;
	bytes: number;
	pendingChanges: number;
	changedAt: number;
}

export const TOTALS_ID = "attachments";

/** Records read per query of a recount, in `_id` order. */
const RECOUNT_BATCH = 1000;

export interface StoredTotals {
	count: number;
	bytes: number;
}

/** The counters as they are (zero before the first start has created them). */
export async function storedTotals(totals: Collection<TotalsDoc>): Promise<StoredTotals> {
	const doc = await totals.findOne({ _id: TOTALS_ID });
	return { count: doc?.count ?? 0, bytes: doc?.bytes ?? 0 };
}

/** Creates the counters' document when missing, pending so that the repair pass counts the records. */
export async function ensureTotals(totals: Collection<TotalsDoc>): Promise<void> {
	if ((await totals.findOne({ _id: TOTALS_ID })) !== null) return;
	try {
		await totals.insert({ _id: TOTALS_ID, count: 0, bytes: 0, pendingChanges: 1, changedAt: 0 });
	} catch (err) {
		// Another replica created it first.
		if (!(err instanceof DuplicateKeyError)) throw err;
	}
}

/** Counts a change of the records in, before its record write. */
export async function beginTotalsChange(totals: Collection<TotalsDoc>, now: number): Promise<void> {
	await totals.update({ _id: TOTALS_ID }, { $inc: { pendingChanges: 1 }, $set: { changedAt: now } });
}

/** Counts a finished change out, with what it added (negative: removed). */
export async function endTotalsChange(totals: Collection<TotalsDoc>, delta: StoredTotals): Promise<void> {
	await totals.update({ _id: TOTALS_ID }, { $inc: { pendingChanges: -1, count: delta.count, bytes: delta.bytes } });
}

/** Every record's size, read a batch at a time through the `_id` index. */
async function countRecords(attachments: Collection<AttachmentDoc>): Promise<StoredTotals> {
	const sum = { count: 0, bytes: 0 };
	let after: string | null = null;
	for (;;) {
		const filter = after === null ? { _id: { $gt: "" } } : { _id: { $gt: after } };
		const batch = await attachments.find(filter, { sort: { _id: 1 }, limit: RECOUNT_BATCH, projection: { size: 1 } });
		for (const doc of batch) {
			sum.count += 1;
			sum.bytes += doc.size;
		}
		if (batch.length < RECOUNT_BATCH) return sum;
		after = (batch.at(-1) as AttachmentDoc)._id;
	}
}

/**
 * The repair pass: when changes are pending and none began after `now - SETTLE_MS`, recounts
 * the records and writes the counters unless they changed meanwhile. Returns whether it did.
 */
export async function recountTotals(totals: Collection<TotalsDoc>, attachments: Collection<AttachmentDoc>, now: number): Promise<boolean> {
	const doc = await totals.findOne({ _id: TOTALS_ID });
	if (doc === null || doc.pendingChanges === 0 || doc.changedAt >= now - SETTLE_MS) return false;
	const counted = await countRecords(attachments);
	const unchanged = { _id: TOTALS_ID, count: doc.count, bytes: doc.bytes, pendingChanges: doc.pendingChanges, changedAt: doc.changedAt };
	return (await totals.update(unchanged, { $set: { ...counted, pendingChanges: 0 } })) > 0;
}
