import type { DocumentStore } from "./document-store.js";
import { importNedbFiles, type NedbImport } from "./nedb-import.js";
import { SqliteDocumentStore } from "./sqlite-store.js";

/**
 * The document store a process uses: MongoDB when `mongoUrl` is set (cluster), otherwise
 * SQLite in `dir`, or in memory when `dir` is null (embedded, tests). NeDB files that an
 * earlier version left in `dir` are imported once (`onImport` hears of it). SQLite opens when
 * it can be read, also on a full or read-only disk (readiness then fails until writes work,
 * issue 16.6); a file it cannot read fails the start.
 */
export async function openDocumentStore(options: {
	mongoUrl?: string;
	/** MongoDB only: how long one operation may run on the server. */
	queryTimeoutMs?: number;
	dir: string | null;
	onImport?: (imported: NedbImport) => void;
}): Promise<DocumentStore> {
	if (options.mongoUrl) {
		// Loaded on demand: the embedded default should not pay for loading mongoose and its driver.
		const { MongoDocumentStore } = await import("./mongo-store.js");
		return await MongoDocumentStore.connect(options.mongoUrl, { queryTimeoutMs: options.queryTimeoutMs });
	}
	const store = new SqliteDocumentStore({ dir: options.dir });
	try {
		if (options.dir !== null) {
			const imported = await importNedbFiles(store, options.dir);
			if (imported !== null) options.onImport?.(imported);
		}
	} catch (err) {
		await store.close();
		throw err;
	}
	return store;
}
