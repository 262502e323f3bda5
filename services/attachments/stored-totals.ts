import type { Collection } from "../../shared/store/document-store.js";
import { beginCountersChange, endCountersChange, ensureCounters, readCounters, recountCounters, type Counters, type CountersDoc } from "../../shared/store/maintained-counters.js";
import type { AttachmentDoc } from "./attachment-doc.js";

/**
 * How many attachments are stored and their bytes (InstanceStats, contract 4.11), kept as
 * counters in one document (shared/store/maintained-counters.ts: counted in before each change
 * of the records, out with its deltas after it, recounted by the repair pass when left pending).
 */
export interface StoredTotals {
	count: number;
	bytes: number;
}

export type TotalsDoc = CountersDoc<StoredTotals>;

export const TOTALS_ID = "attachments";

/** Records read per query of a recount, in `_id` order. */
const RECOUNT_BATCH = 1000;

function totalsOf(totals: Collection<TotalsDoc>): Counters<StoredTotals> {
	return { collection: totals, id: TOTALS_ID, zero: { count: 0, bytes: 0 } };
}

/** The counters as they are (zero before the first start has created them). */
export function storedTotals(totals: Collection<TotalsDoc>): Promise<StoredTotals> {
	return readCounters(totalsOf(totals));
}

/** Creates the counters' document when missing, pending so that the repair pass counts the records. */
export function ensureTotals(totals: Collection<TotalsDoc>): Promise<void> {
	return ensureCounters(totalsOf(totals));
}

/** Counts a change of the records in, before its record write. */
export function beginTotalsChange(totals: Collection<TotalsDoc>, now: number): Promise<void> {
	return beginCountersChange(totalsOf(totals), now);
}

/** Counts a finished change out, with what it added (negative: removed). */
export function endTotalsChange(totals: Collection<TotalsDoc>, delta: StoredTotals): Promise<void> {
	return endCountersChange(totalsOf(totals), { count: delta.count, bytes: delta.bytes });
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

/** The repair pass of the totals (maintained-counters.ts, recountCounters). Returns whether it recounted. */
export function recountTotals(totals: Collection<TotalsDoc>, attachments: Collection<AttachmentDoc>, now: number): Promise<boolean> {
	return recountCounters(totalsOf(totals), now, () => countRecords(attachments));
}
