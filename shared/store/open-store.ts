import type { DocumentStore } from "./document-store.js";
import { NedbDocumentStore } from "./nedb-store.js";

/**
 * The document store a process uses: MongoDB when `mongoUrl` is set (cluster), otherwise NeDB
 * files under `dir`, or memory when `dir` is null (embedded, tests). Fails when the store
 * cannot serve, so a process does not start half-ready.
 */
export async function openDocumentStore(options: { mongoUrl?: string; dir: string | null }): Promise<DocumentStore> {
	if (options.mongoUrl) {
		// Loaded on demand: the embedded default should not pay for loading mongoose and its driver.
		const { MongoDocumentStore } = await import("./mongo-store.js");
		return await MongoDocumentStore.connect(options.mongoUrl);
	}
	const store = new NedbDocumentStore({ dir: options.dir });
	await store.ping();
	return store;
}
