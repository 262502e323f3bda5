import type { Collection } from "../../shared/store/document-store.js";
import { beginCountersChange, endCountersChange, ensureCounters, readCounters, recountCounters, type Counters, type CountersDoc } from "../../shared/store/maintained-counters.js";
import type { MemoDoc } from "./memo-doc.js";

/**
 * InstanceStats' `memoCount` (contract 4.11): memos that exist for their users, NORMAL and
 * ARCHIVED, comments included, soft-deleted ones not. Kept as a counter
 * (shared/store/maintained-counters.ts) so that reading it is one lookup, where a count of the
 * memos reads an index entry per memo. The count changes only where a memo is inserted and
 * where `deleteTime` is set (a purge removes memos already deleted); each of those writes is
 * counted in before and out with its delta after.
 */
export interface MemoCount {
	memoCount: number;
}

export type MemoCountDoc = CountersDoc<MemoCount>;

/** Memos read per query of a recount. */
const RECOUNT_BATCH = 1000;

function counterOf(totals: Collection<MemoCountDoc>): Counters<MemoCount> {
	return { collection: totals, id: "memos", zero: { memoCount: 0 } };
}

export function readMemoCount(totals: Collection<MemoCountDoc>): Promise<MemoCount> {
	return readCounters(counterOf(totals));
}

export function ensureMemoCount(totals: Collection<MemoCountDoc>): Promise<void> {
	return ensureCounters(counterOf(totals));
}

/**
 * Runs `write`, which returns how many memos it added (negative: deleted), counted in before it
 * and out after it. A write that throws leaves the change pending, so the repair pass recounts,
 * unless `wroteNothing` says the error means nothing was written.
 */
export async function countedMemoChange<T>(totals: Collection<MemoCountDoc>, now: number, write: () => Promise<{ result: T; added: number }>, wroteNothing: (err: unknown) => boolean = () => false): Promise<T> {
	const counter = counterOf(totals);
	await beginCountersChange(counter, now);
	let done: { result: T; added: number };
	try {
		done = await write();
	} catch (err) {
		if (wroteNothing(err)) await endCountersChange(counter, { memoCount: 0 });
		throw err;
	}
	await endCountersChange(counter, { memoCount: done.added });
	return done.result;
}

/** The memos not deleted, read a batch of ids at a time through the (deleteTime, _id) index. */
async function countLiveMemos(memos: Collection<MemoDoc>): Promise<MemoCount> {
	let memoCount = 0;
	let after = "";
	for (;;) {
		const batch = await memos.find({ deleteTime: null, _id: { $gt: after } }, { sort: { _id: 1 }, limit: RECOUNT_BATCH, projection: { _id: 1 } });
		memoCount += batch.length;
		if (batch.length < RECOUNT_BATCH) return { memoCount };
		after = (batch.at(-1) as MemoDoc)._id;
	}
}

/** The repair pass of the count (maintained-counters.ts, recountCounters). Returns whether it recounted. */
export function recountMemos(totals: Collection<MemoCountDoc>, memos: Collection<MemoDoc>, now: number): Promise<boolean> {
	return recountCounters(counterOf(totals), now, () => countLiveMemos(memos));
}
