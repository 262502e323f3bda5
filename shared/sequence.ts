import type { Doc, DocumentStore } from "./store/document-store.js";

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
