import { internal } from "./errors.js";
import { DuplicateKeyError, type Collection, type Doc, type DocumentStore, type IndexSpec } from "./store/document-store.js";

/**
 * The unique index on `seq` of a collection whose pages it orders; sparse, so that documents
 * from before sequences (imports) never clash on a missing value.
 */
export const SEQ_INDEX: IndexSpec = { fields: { seq: 1 }, unique: true, sparse: true };

/** Sequence values an insert tries: a failover loses at most a few acknowledged increments. */
const SEQUENCE_ATTEMPTS = 10;

interface SequenceDoc extends Doc {
	value: number;
}

/**
 * The next value of the counter `counter` kept in `collection`: unique and increasing across
 * every replica of a service, as one atomic upsert-and-increment in the shared store. Lists use
 * it to break ties between equal sort keys.
 */
export async function nextSequence(documents: DocumentStore, collection: string, counter: string): Promise<number> {
	const doc = await documents.collection<SequenceDoc>(collection).findOneAndUpdate({ _id: counter }, { $inc: { value: 1 } }, { upsert: true });
	if (doc === null) throw new Error(`sequence ${collection}/${counter} was not incremented`);
	return doc.value;
}

/**
 * Inserts `make(seq)` with the next value of a sequence that a unique index guards (issue 21:
 * `seq` breaks the ties of keyset pages, so a value handed out twice, as after a rollback of
 * the counter's last increments in a failover, would make pages skip or repeat). A clash while
 * the document's `_id` is still free is the sequence's: the insert takes the next value, and
 * after SEQUENCE_ATTEMPTS of them fails as INTERNAL. A clash on `_id` is the caller's to report.
 */
export async function insertSequenced<T extends Doc>(collection: Collection<T>, nextSeq: () => Promise<number>, make: (seq: number) => T): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		const doc = make(await nextSeq());
		try {
			return await collection.insert(doc);
		} catch (err) {
			if (!(err instanceof DuplicateKeyError) || (await collection.findOne({ _id: doc._id })) !== null) throw err;
			if (attempt === SEQUENCE_ATTEMPTS) throw internal(`${collection.name}: ${SEQUENCE_ATTEMPTS} sequence values in a row were taken`);
		}
	}
}
