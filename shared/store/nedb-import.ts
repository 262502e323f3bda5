import { mkdir, readdir, readFile, rename } from "node:fs/promises";
import path from "node:path";
import type { Doc, IndexSpec } from "./document-store.js";
import { decodeJson, isPlainObject } from "./sqlite/json-value.js";
import type { SqliteDocumentStore } from "./sqlite-store.js";

/**
 * The one-time import of the NeDB files that versions before the SQLite store kept in the
 * data directory: `<collection>.db`, one JSON document per line, appended to. A later line
 * for an `_id` replaces the earlier ones, `{"$$deleted":true,"_id":…}` removes it,
 * `{"$$indexCreated":{"fieldName":"a,b","unique":…,"sparse":…}}` declares an index and
 * `{"$$indexRemoved":"a,b"}` drops it; dates are `{"$$date":<ms>}`. A line that does not
 * parse (NeDB could leave a partial line after a full disk) is skipped and counted; as NeDB
 * did, more than 10 % of such lines in a file refuses the import rather than lose data.
 *
 * Everything is written in one transaction; then the files are moved into
 * `nedb-imported-<time>/` beside the database, kept for the operator to remove.
 */

export interface NedbImport {
	/** False when these files had been imported before (the process stopped before moving them). */
	imported: boolean;
	collections: number;
	documents: number;
	skippedLines: number;
	/** Where the NeDB files are now. */
	movedTo: string;
}

const DATA_FILE = /^([A-Za-z0-9_-]{1,64})\.db$/;
// NeDB writes a whole new file as `<name>.db~` before renaming it over the old one.
const TEMP_FILE = /^[A-Za-z0-9_-]{1,64}\.db~$/;
const CORRUPT_ALERT_THRESHOLD = 0.1;

interface ParsedFile {
	name: string;
	docs: Doc[];
	indexes: IndexSpec[];
	skippedLines: number;
}

/** Imports and moves aside the NeDB files in `dir`; null when there are none. */
export async function importNedbFiles(store: SqliteDocumentStore, dir: string, now = new Date()): Promise<NedbImport | null> {
	const entries = await readdir(dir);
	const dataFiles = entries.filter(file => DATA_FILE.test(file)).sort();
	if (dataFiles.length === 0) return null;
	const parsed: ParsedFile[] = [];
	for (const file of dataFiles) parsed.push(parseNedbFile((DATA_FILE.exec(file) as RegExpExecArray)[1], await readFile(path.join(dir, file), "utf8")));
	// Named after the files' set, so a crash between the commit and the move does not import twice.
	const imported = store.importOnce(`nedb:${dataFiles.join(",")}`, parsed);
	const movedTo = path.join(dir, `nedb-imported-${now.toISOString().replaceAll(":", "-")}`);
	await mkdir(movedTo, { recursive: true });
	for (const file of [...dataFiles, ...entries.filter(file => TEMP_FILE.test(file))]) await rename(path.join(dir, file), path.join(movedTo, file));
	return {
		imported,
		collections: parsed.length,
		documents: parsed.reduce((sum, file) => sum + file.docs.length, 0),
		skippedLines: parsed.reduce((sum, file) => sum + file.skippedLines, 0),
		movedTo
	};
}

/** The documents and indexes a NeDB data file holds after replaying its lines. */
export function parseNedbFile(name: string, text: string): ParsedFile {
	const docs = new Map<string, Doc>();
	const indexes = new Map<string, IndexSpec>();
	const lines = text.split("\n").filter(line => line !== "");
	let skippedLines = 0;
	for (const line of lines) {
		let record: unknown;
		try {
			record = decodeJson(line);
		} catch {
			skippedLines += 1;
			continue;
		}
		if (!isPlainObject(record)) {
			skippedLines += 1;
		} else if (typeof record._id === "string" && record._id !== "") {
			if (record.$$deleted === true) docs.delete(record._id);
			else docs.set(record._id, record as Doc);
		} else if (isPlainObject(record.$$indexCreated) && typeof record.$$indexCreated.fieldName === "string") {
			const { fieldName, unique, sparse } = record.$$indexCreated;
			indexes.set(fieldName, {
				fields: Object.fromEntries(fieldName.split(",").map(field => [field, 1 as const])),
				unique: unique === true,
				sparse: sparse === true
			});
		} else if (typeof record.$$indexRemoved === "string") {
			indexes.delete(record.$$indexRemoved);
		} else {
			skippedLines += 1;
		}
	}
	if (lines.length > 0 && skippedLines / lines.length > CORRUPT_ALERT_THRESHOLD) {
		throw new Error(`${name}.db: ${skippedLines} of ${lines.length} lines are not NeDB records; refusing to import it (move or repair the file)`);
	}
	return { name, docs: [...docs.values()], indexes: [...indexes.values()], skippedLines };
}

export function describeImport(imported: NedbImport): string {
	if (!imported.imported) return `NeDB files imported earlier were still in the data directory; they are now kept in ${imported.movedTo}`;
	const skipped = imported.skippedLines > 0 ? `, ${imported.skippedLines} damaged lines skipped` : "";
	return `Imported ${imported.documents} documents of ${imported.collections} collections from NeDB files into SQLite${skipped}; the NeDB files are kept in ${imported.movedTo}`;
}
