import { StorageError, type DocumentStore } from "./document-store.js";
import { importNedbFiles, type NedbImport } from "./nedb-import.js";
import { SqliteDocumentStore, type IndexUpgrade } from "./sqlite-store.js";

/**
 * The document store a process uses: MongoDB when `mongoUrl` is set (cluster), otherwise
 * SQLite in `dir`, or in memory when `dir` is null (embedded, tests). NeDB files that an
 * earlier version left in `dir` are imported once (`onImport` hears of it), and the expression
 * indexes of versions before field columns are rebuilt on columns once (`onUpgrade` hears a line
 * to log; when the storage refuses the writes, the old indexes go on serving). SQLite opens when
 * it can be read, also on a full or read-only disk (readiness then fails until writes work,
 * issue 16.6); a file it cannot read fails the start.
 */
export async function openDocumentStore(options: {
	mongoUrl?: string;
	/** MongoDB only: how long one operation may run on the server. */
	queryTimeoutMs?: number;
	dir: string | null;
	onImport?: (imported: NedbImport) => void;
	onUpgrade?: (line: string, level: "info" | "warn") => void;
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
		upgradeIndexes(store, options.onUpgrade);
	} catch (err) {
		await store.close();
		throw err;
	}
	return store;
}

function upgradeIndexes(store: SqliteDocumentStore, report: (line: string, level: "info" | "warn") => void = () => undefined): void {
	let upgrade: IndexUpgrade | null;
	try {
		upgrade = store.upgradeIndexes();
	} catch (err) {
		if (!(err instanceof StorageError)) throw err;
		report(`The SQLite indexes of an earlier version could not be rebuilt on field columns (${err.message}); they serve as they are until a start that can`, "warn");
		return;
	}
	if (upgrade === null) return;
	const kept = upgrade.kept.length > 0 ? `; kept as they are, not the store's: ${upgrade.kept.join(", ")}` : "";
	report(`Rebuilt ${upgrade.indexes} SQLite indexes of ${upgrade.collections} collections on field columns (once, from an earlier version's expression indexes)${kept}`, "info");
}
