import { DuplicateKeyError, type Collection, type Doc } from "./document-store.js";
import { SETTLE_MS } from "./settle-time.js";

/**
 * Counters of a collection's records kept in one document, so that reading them costs one
 * lookup however many records exist (InstanceStats, issue 21). They change apart from the
 * records, without transactions:
 * - every change of the records is counted in `pendingChanges` (with `changedAt`) before its
 *   record write and counted out, with its deltas, in one write after it;
 * - a crash or a failed write between the two leaves the change pending and the counters
 *   possibly off by it; the repair pass (`recountCounters`) recounts them from the records once
 *   no change has begun for SETTLE_MS, and writes the recount only if nothing changed the
 *   counters while it read.
 * A store from before the counters gets their document at the first start, pending since the
 * epoch, so that the first repair pass counts what is there.
 */
/** Named counters: every field a number. */
export type Counts<C> = { [K in keyof C]: number };

export type CountersDoc<C extends Counts<C>> = Doc & C & { pendingChanges: number; changedAt: number };

/** One counters document: its collection, its id and its counters' zero values (their names). */
export interface Counters<C extends Counts<C>> {
	collection: Collection<CountersDoc<C>>;
	id: string;
	zero: C;
}

/** The counters as they are (zero before the first start has created them). */
export async function readCounters<C extends Counts<C>>(counters: Counters<C>): Promise<C> {
	const doc = await counters.collection.findOne({ _id: counters.id });
	return Object.fromEntries(Object.entries(counters.zero).map(([name, zero]) => [name, (doc?.[name] as number | undefined) ?? zero])) as C;
}

/** Creates the counters' document when missing, pending so that the repair pass counts the records. */
export async function ensureCounters<C extends Counts<C>>(counters: Counters<C>): Promise<void> {
	if ((await counters.collection.findOne({ _id: counters.id })) !== null) return;
	try {
		await counters.collection.insert({ ...counters.zero, _id: counters.id, pendingChanges: 1, changedAt: 0 } as CountersDoc<C>);
	} catch (err) {
		// Another replica created it first.
		if (!(err instanceof DuplicateKeyError)) throw err;
	}
}

/** Counts a change of the records in, before its record write. */
export async function beginCountersChange<C extends Counts<C>>(counters: Counters<C>, now: number): Promise<void> {
	await counters.collection.update({ _id: counters.id }, { $inc: { pendingChanges: 1 }, $set: { changedAt: now } });
}

/** Counts a finished change out, with what it added to each counter (negative: removed). */
export async function endCountersChange<C extends Counts<C>>(counters: Counters<C>, delta: C): Promise<void> {
	await counters.collection.update({ _id: counters.id }, { $inc: { ...delta, pendingChanges: -1 } });
}

/**
 * The repair pass: when changes are pending and none began after `now - SETTLE_MS`, recounts
 * the records with `count` and writes the counters unless they changed meanwhile. Returns whether it did.
 */
export async function recountCounters<C extends Counts<C>>(counters: Counters<C>, now: number, count: () => Promise<C>): Promise<boolean> {
	const doc = await counters.collection.findOne({ _id: counters.id });
	if (doc === null || doc.pendingChanges === 0 || doc.changedAt >= now - SETTLE_MS) return false;
	const counted = await count();
	const unchanged = { _id: counters.id, pendingChanges: doc.pendingChanges, changedAt: doc.changedAt, ...Object.fromEntries(Object.keys(counters.zero).map(name => [name, doc[name]])) };
	return (await counters.collection.update(unchanged, { $set: { ...counted, pendingChanges: 0 } })) > 0;
}
