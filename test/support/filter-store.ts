import type { Collection, Doc, DocumentStore } from "../../shared/store/document-store.js";
import { openDocumentStore } from "../../shared/store/open-store.js";

/**
 * An in-memory SQLite collection holding `docs`, opened before the tests of the calling file and
 * closed after them, for running compiled filters against the real store adapter.
 */
export function useFilterStore<T extends Doc>(name: string, docs: readonly T[]): () => Collection<T> {
	let store: DocumentStore;
	let collection: Collection<T>;
	beforeAll(async () => {
		store = await openDocumentStore({ dir: null });
		collection = store.collection<T>(name);
		for (const doc of docs) await collection.insert(doc);
	});
	afterAll(async () => {
		await store.close();
	});
	return () => collection;
}
