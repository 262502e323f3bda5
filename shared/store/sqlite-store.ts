import { randomUUID } from "node:crypto";
import { accessSync, constants, mkdirSync } from "node:fs";
import path from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { BoundedCache } from "../cache/bounded-cache.js";
import type { Collection, Doc, DocumentStore, Filter, FindOptions, IndexSpec, MergedFindOptions, StorageError, Update, UpdateOptions } from "./document-store.js";
import { applyUpdate, checkUpdate, equalityFields, type ElementMatcher } from "./sqlite/apply-update.js";
import { columnNamed, columnOf, columnValue, type FieldColumn, FieldColumns } from "./sqlite/field-columns.js";
import { FilterTranslator, jsonPath, REGEX_FUNCTION, sqlString, type SqlParam } from "./sqlite/filter-sql.js";
import { arrayPaths, decodeJson, toJson } from "./sqlite/json-value.js";
import { queryKey } from "./sqlite/query-key.js";
import { mapSqliteError, storageFailure } from "./sqlite/sql-errors.js";

/** The database file under the store's directory. */
export const DATABASE_FILE = "documents.sqlite";

const COLLECTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
// Another process of the host holding the write lock makes a writer wait this long before SQLITE_BUSY.
const BUSY_TIMEOUT_MS = 5000;
// Statements are prepared once per SQL text; filters with lists of varying length make new texts.
const STATEMENT_CACHE_SIZE = 2000;
/**
 * Turns a write group stays open at most after its first (see the class comment), so a write
 * waits at most this many turns more for its commit; under 16 concurrent CreateMemo requests
 * a group then holds about 13 writes instead of 10.
 */
const GROUP_TURNS = 4;
const REGEX_CACHE_SIZE = 500;
// SQLite's page cache per connection, in KiB (its default is 2,000). A tag-filtered list reads a
// few hundred memo rows spread over as many pages: at the default most were read again through
// pread at every list (~0.5 ms of system time per page of 50), at 8 MiB they stay cached.
const PAGE_CACHE_KIB = 8192;
/**
 * WAL pages after which a commit checkpoints them into the database (SQLite's default is 1,000).
 * A checkpoint syncs the WAL and the database, and it runs inside the commit that passes the
 * mark, on the event loop: under 16 concurrent CreateMemo requests a commit writes ~80 pages
 * (a new memo's ~57 index entries), so at 1,000 a checkpoint, its two fsyncs and its copy of
 * every page came every dozen commits. At 10,000 (a WAL of up to ~40 MiB) they come a tenth
 * as often, and a page written by many commits (an index's newest leaf) is copied once.
 */
const WAL_CHECKPOINT_PAGES = 10_000;
// The collection size the planner statistics of an index describe (see createIndex).
const ASSUMED_ROWS = 1_000_000;
// What the write probe of a failing store writes (and removes): room for a few documents.
const PROBE_BYTES = 64 * 1024;

type Row = Record<string, SQLInputValue>;

/** How an index names a field: its column, or (the layout before field columns) the expression the column holds. */
type FieldSql = (field: string) => string;

const COLUMN: FieldSql = field => (field === "_id" ? "_id" : columnOf(field));
const EXPRESSION: FieldSql = field => (field === "_id" ? "_id" : columnValue(field, "doc"));

/** What `upgradeIndexes` converted. */
export interface IndexUpgrade {
	collections: number;
	indexes: number;
	/** Expression indexes not made by the port's naming, left as they are. */
	kept: string[];
}

/** One index to create: its name, its CREATE statement, its column count and whether it is unique. */
interface IndexStatement {
	name: string;
	sql: string;
	columns: number;
	unique: boolean;
}

/**
 * The embedded adapter: one SQLite database (node:sqlite) in `<dir>/documents.sqlite`, or in
 * memory when `dir` is null (tests). Each collection is a table of `_id` (primary key), `doc`
 * (the rest of the document as JSON text) and a column for each field path an index names,
 * holding `json_extract(doc, '$.field')` (sqlite/field-columns.ts); indexes are built on those
 * columns; filters are translated to SQL (sqlite/filter-sql.ts).
 *
 * Every write is all or nothing, so a failed write (a unique clash, a full disk, a crash)
 * leaves nothing behind. Writes share one IMMEDIATE transaction, each in a savepoint of its
 * own (but one statement's, which SQLite undoes by itself: see groupWrite), committed at the first turn of the event loop in which no write joined it, and at the
 * latest GROUP_TURNS turns after its first (group commit): a commit writes every page it changed
 * to the WAL, and a new memo's ~50 index entries put consecutive writes on the same pages, so
 * one commit for many writes costs little more than one for one. Nothing is acknowledged before its commit: a write resolves,
 * and a read made while writes are uncommitted answers, only after it, so a failed commit
 * fails them all and no failed write is ever seen. The file is in WAL mode with a busy
 * time-out, so several processes of one host can share it: readers never wait, writers queue.
 *
 * When the storage fails a write (a full disk, `max_page_count`, a read-only or damaged
 * file), the store answers the port's StorageError and `ping` (readiness) fails until a probe
 * write succeeds again; reads go on meanwhile (issue 16.6).
 */
export class SqliteDocumentStore implements DocumentStore {
	/** Contract 4.11 names the embedded store `nedb`, whatever its engine. */
	readonly driver = "nedb";
	readonly file: string | null;
	readonly identity: string;
	private db: DatabaseSync;
	/** Opened for this process only (see open); `ping` reopens it shared once the disk has room. */
	private exclusive = false;
	/** The storage failure of the last failed write, until a probe write succeeds (readiness). */
	private writeFailure: StorageError | null = null;
	private readonly statements = new BoundedCache<string, StatementSync>({ ttlMs: Infinity, maxEntries: STATEMENT_CACHE_SIZE });
	private readonly collections = new Map<string, SqliteCollection<Doc>>();
	private dataVersion = -1;
	/** Counts the connections opened: a new one counts its changes from 0 again (see changeToken). */
	private connections = 0;
	private closed = false;
	/** The open transaction of this turn's writes, until its commit (see the class comment). */
	private group: WriteGroup | null = null;

	/** Opens (creating when missing) the database under `dir`, or one in memory when `dir` is null. */
	constructor(options: { dir: string | null }) {
		if (options.dir !== null) mkdirSync(options.dir, { recursive: true });
		this.file = options.dir === null ? null : path.join(options.dir, DATABASE_FILE);
		this.db = this.open();
		try {
			this.identity = this.readIdentity() ?? this.createIdentity();
		} catch (err) {
			this.db.close();
			throw storageFailure(err) ?? err;
		}
	}

	private readIdentity(): string | undefined {
		if (this.db.prepare("SELECT 1 FROM sqlite_schema WHERE name = '_store'").get() === undefined) return undefined;
		const row = this.db.prepare("SELECT value FROM _store WHERE key = 'identity'").get() as Row | undefined;
		return row === undefined ? undefined : String(row.value);
	}

	/** At the database's creation (or the first open by a version that had none); the first of racing processes wins. */
	private createIdentity(): string {
		this.transaction(() => {
			this.db.exec("CREATE TABLE IF NOT EXISTS _store (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID");
			this.db.prepare("INSERT OR IGNORE INTO _store (key, value) VALUES ('identity', ?1)").run(randomUUID());
		});
		return this.readIdentity() as string;
	}

	/**
	 * A connection to the database, shared with the other processes of the host when possible.
	 * On a full disk SQLite cannot size the shared-memory file WAL mode keeps beside the
	 * database, so not even a read works; with EXCLUSIVE locking that index lives in the
	 * process's memory instead, so the process starts and serves reads, while other processes
	 * cannot open the file until `ping` finds room and reopens it shared.
	 */
	private open(): DatabaseSync {
		try {
			return this.connect(false);
		} catch (err) {
			const failure = storageFailure(err);
			if (this.file === null || (failure?.code !== "ENOSPC" && failure?.code !== "EIO")) throw failure ?? err;
			try {
				const db = this.connect(true);
				this.exclusive = true;
				return db;
			} catch {
				throw failure;
			}
		}
	}

	private connect(exclusive: boolean): DatabaseSync {
		const db = new DatabaseSync(this.file ?? ":memory:");
		try {
			db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
			// A write's savepoint keeps the first version of every page it changes in a sub-journal,
			// which SQLite moves to a temporary file past 64 KiB: a new memo changes a page in each of
			// its ~57 indexes, so every insert wrote ~230 KiB to a file the commit then discards.
			db.exec("PRAGMA temp_store = MEMORY");
			if (exclusive) db.exec("PRAGMA locking_mode = EXCLUSIVE");
			if (this.file !== null) {
				db.exec("PRAGMA journal_mode = WAL");
				// In WAL mode NORMAL syncs at checkpoints, not at every commit: a commit survives the
				// process crashing, and a power cut loses at most the last commits, never consistency
				// (FULL measured about 15 ms a commit on this disk, which caps writes far below the target).
				db.exec("PRAGMA synchronous = NORMAL");
				db.exec(`PRAGMA wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
			}
			// After the locking mode: this pragma reads the schema, which on a full disk only an
			// EXCLUSIVE connection can (see open()).
			db.exec(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);
			db.exec("CREATE TABLE IF NOT EXISTS _array_paths (collection TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (collection, path)) WITHOUT ROWID");
			// ANALYZE of a small table is the way to create sqlite_stat1, where the indexes' statistics go.
			if (db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat1'").get() === undefined) db.exec("ANALYZE _array_paths");
			registerRegexFunction(db);
			return db;
		} catch (err) {
			db.close();
			throw err;
		}
	}

	collection<T extends Doc = Doc>(name: string): Collection<T> {
		this.checkOpen();
		if (!COLLECTION_NAME.test(name)) throw new Error(`invalid collection name: ${JSON.stringify(name)}`);
		let collection = this.collections.get(name);
		if (!collection) {
			collection = new SqliteCollection<Doc>(name, this);
			this.collections.set(name, collection);
		}
		return collection as unknown as Collection<T>;
	}

	/** Fails while reads fail, or while writes fail: after a failed write, until a probe write succeeds. */
	async ping(): Promise<void> {
		this.checkOpen();
		this.statement("SELECT 1").get();
		if (this.file !== null) accessSync(path.dirname(this.file), constants.W_OK);
		if (this.writeFailure === null && !this.exclusive) return;
		this.probeWrite();
		this.writeFailure = null;
		if (this.exclusive) this.reopenShared();
	}

	/** Writes and removes PROBE_BYTES in one transaction; throws the StorageError when that fails. */
	private probeWrite(): void {
		try {
			this.transaction(() => {
				this.db.exec("CREATE TABLE IF NOT EXISTS _write_probe (id INTEGER PRIMARY KEY, pad BLOB NOT NULL)");
				this.db.exec(`INSERT INTO _write_probe (pad) VALUES (zeroblob(${PROBE_BYTES}))`);
				this.db.exec("DELETE FROM _write_probe");
			});
		} catch (err) {
			throw storageFailure(err) ?? err;
		}
	}

	private reopenShared(): void {
		// Prepared statements belong to the connection being closed.
		this.statements.invalidate();
		this.db.close();
		this.dataVersion = -1;
		this.connections += 1;
		try {
			this.db = this.connect(false);
			this.exclusive = false;
		} catch (err) {
			this.db = this.connect(true);
			throw storageFailure(err) ?? err;
		}
	}

	async sizeBytes(): Promise<number> {
		if (this.file === null || this.closed) return -1;
		try {
			const row = this.statement("SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()").get() as Row;
			return Number(row.bytes);
		} catch {
			return -1;
		}
	}

	/**
	 * The rows this connection has inserted, updated or deleted (`total_changes()`, counted as each
	 * statement runs, before its commit), and SQLite's `data_version`, which moves when another
	 * connection (another process) commits. A read that saw a write's uncommitted rows answers only
	 * once they are committed (readSettled), so the token read before it either counted them or
	 * differs from the one read after. A write that changes no row (a delete of nothing, as the
	 * webhook queue's housekeeping makes every few seconds) leaves the token as it was.
	 */
	changeToken(): string {
		this.checkOpen();
		const changes = this.checkDataVersion();
		return `${this.connections}:${String(changes)}:${String(this.dataVersion)}`;
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.commitGroup();
		this.closed = true;
		this.statements.invalidate();
		this.db.close();
	}

	/** A prepared statement for `sql`, made once. */
	statement(sql: string): StatementSync {
		let statement = this.statements.get(sql);
		if (statement === undefined) {
			statement = this.db.prepare(sql);
			this.statements.set(sql, statement);
		}
		return statement;
	}

	/** Runs `work` in one IMMEDIATE transaction of its own: all of it is committed, or none of it. */
	transaction<R>(work: () => R): R {
		this.checkOpen();
		this.commitGroup();
		try {
			this.db.exec("BEGIN IMMEDIATE");
			this.sync();
			const result = work();
			this.db.exec("COMMIT");
			return result;
		} catch (err) {
			if (this.db.isTransaction) this.db.exec("ROLLBACK");
			this.writeFailure = storageFailure(err) ?? this.writeFailure;
			throw err;
		}
	}

	/**
	 * Runs `work` in a savepoint of this turn's transaction (opened by the turn's first write)
	 * and answers once that transaction is committed: `work`'s result, or why the commit failed.
	 * With `oneStatement` (`work` runs at most one statement that changes rows, and that one
	 * changes one row) there is no savepoint: SQLite undoes a failed statement itself, and a
	 * single-row INSERT or UPDATE checks its constraints before changing anything. A savepoint
	 * copies every page the write changes first: a new memo changes one in each of its ~57
	 * indexes, which doubled the insert's CPU time (~80 to ~195 µs).
	 */
	async groupWrite<R>(work: () => R, oneStatement = false): Promise<R> {
		this.checkOpen();
		let group: WriteGroup | null = null;
		try {
			group = this.openGroup();
			group.writes += 1;
			// Prepared once: every write runs these, and exec() would parse them each time.
			if (!oneStatement) this.statement("SAVEPOINT write").run();
			const result = work();
			if (!oneStatement) this.statement("RELEASE write").run();
			await group.committed;
			return result;
		} catch (err) {
			// Else it was not begun, or the commit failed.
			if (group !== null && this.group === group) this.undoWrite(group, err, !oneStatement);
			this.writeFailure = storageFailure(err) ?? this.writeFailure;
			throw err;
		}
	}

	private undoWrite(group: WriteGroup, err: unknown, savepoint: boolean): void {
		if (this.db.isTransaction) {
			// Without a savepoint SQLite has undone the failed statement.
			if (!savepoint) return;
			this.db.exec("ROLLBACK TO write");
			this.db.exec("RELEASE write");
		} else {
			// SQLite rolled the whole transaction back (a full disk, an I/O error): the turn's earlier writes are gone too.
			this.failGroup(group, err);
		}
	}

	/** Waits until what a read saw is committed: while this turn's writes are not, they may still fail. */
	async settled(): Promise<void> {
		if (this.group !== null) await this.group.committed;
	}

	private openGroup(): WriteGroup {
		if (this.group !== null) return this.group;
		this.db.exec("BEGIN IMMEDIATE");
		const group = new WriteGroup();
		this.group = group;
		// With the write lock held, what other connections committed (a column added) is final until the commit.
		this.checkDataVersion();
		this.commitWhenQuiet(group, 0, 0);
		return group;
	}

	/**
	 * Commits `group` after this turn unless writes joined it since `seen` of them had (and fewer
	 * than GROUP_TURNS turns have passed): under concurrent requests, whose writes are spread over
	 * the turns, the writes of several turns then share a commit.
	 */
	private commitWhenQuiet(group: WriteGroup, seen: number, turns: number): void {
		setImmediate(() => {
			if (this.group !== group) return;
			if (group.writes > seen && turns < GROUP_TURNS) this.commitWhenQuiet(group, group.writes, turns + 1);
			else this.commitGroup();
		});
	}

	private commitGroup(): void {
		const group = this.group;
		if (group === null) return;
		try {
			this.db.exec("COMMIT");
			this.group = null;
			group.resolve();
		} catch (err) {
			if (this.db.isTransaction) this.db.exec("ROLLBACK");
			this.writeFailure = storageFailure(err) ?? this.writeFailure;
			this.failGroup(group, err);
		}
	}

	/** The group's writes were rolled back: each collection re-reads what they noted, and each waiting operation fails. */
	private failGroup(group: WriteGroup, err: unknown): void {
		this.group = null;
		for (const collection of this.collections.values()) collection.rolledBack();
		group.reject(err);
	}

	/**
	 * Called before each operation and when a write transaction begins: when another connection
	 * (another process) has committed since, the collections re-read which paths hold arrays and
	 * which columns their table has, as that process may have added some. Not while this turn's
	 * write group is open: it holds the write lock, so nothing was committed since it began.
	 */
	sync(): void {
		this.checkOpen();
		if (this.group === null) this.checkDataVersion();
	}

	/**
	 * Reads `data_version` (see sync), and `total_changes()` for changeToken in the same statement:
	 * a token is then also the check, and the check costs about what `PRAGMA data_version` did as
	 * the row is read as an array (1.6 against 1.4 µs, and 2.1 µs the token's own statement took).
	 */
	private checkDataVersion(): number {
		const statement = this.statement("SELECT total_changes(), data_version FROM pragma_data_version");
		// Set at each use: the statement cache may have made the statement again since.
		statement.setReturnArrays(true);
		const [changes, version] = statement.get() as unknown as [number, number];
		if (version !== this.dataVersion) {
			this.dataVersion = version;
			for (const collection of this.collections.values()) collection.forgetSchema();
		}
		return changes;
	}

	/**
	 * Writes the collections of `batches` in one transaction, unless an import named `source` was
	 * committed before (then nothing is written and the answer is false).
	 */
	importOnce(source: string, batches: { name: string; docs: Doc[]; indexes: IndexSpec[] }[]): boolean {
		const collections = batches.map(batch => ({ batch, collection: this.collection(batch.name) as unknown as SqliteCollection<Doc> }));
		return this.transaction(() => {
			this.db.exec("CREATE TABLE IF NOT EXISTS _imports (source TEXT PRIMARY KEY NOT NULL, at INTEGER NOT NULL)");
			if (this.statement("SELECT 1 FROM _imports WHERE source = ?1").get(source) !== undefined) return false;
			for (const { batch, collection } of collections) collection.importInTransaction(batch.docs, batch.indexes);
			this.statement("INSERT INTO _imports (source, at) VALUES (?1, ?2)").run(source, Date.now());
			return true;
		});
	}

	/**
	 * Rebuilds, in one transaction, the expression indexes of versions before field columns on
	 * columns (sqlite/field-columns.ts), adding and filling the columns; null when it rebuilt none.
	 */
	upgradeIndexes(): IndexUpgrade | null {
		const expressionIndexes = "SELECT tbl_name AS tbl, name, sql FROM sqlite_schema WHERE type = 'index' AND sql LIKE '%json_extract(doc, %'";
		if (this.statement(expressionIndexes).get() === undefined) return null;
		try {
			return this.transaction(() => this.upgradeInTransaction(expressionIndexes));
		} catch (err) {
			throw storageFailure(err) ?? err;
		}
	}

	private upgradeInTransaction(expressionIndexes: string): IndexUpgrade | null {
		const byTable = new Map<string, Row[]>();
		for (const row of this.statement(expressionIndexes).all() as Row[]) byTable.set(String(row.tbl), [...(byTable.get(String(row.tbl)) ?? []), row]);
		const upgrade: IndexUpgrade = { collections: 0, indexes: 0, kept: [] };
		for (const [table, rows] of byTable) {
			const name = table.slice("c_".length);
			const indexes = new Map(rows.map(row => [String(row.name), String(row.sql)]));
			const converted = table.startsWith("c_") && COLLECTION_NAME.test(name) ? (this.collection(name) as unknown as SqliteCollection<Doc>).upgradeIndexes(indexes) : 0;
			if (converted > 0) upgrade.collections += 1;
			upgrade.indexes += converted;
			upgrade.kept.push(...indexes.keys());
		}
		if (upgrade.indexes === 0) return null;
		this.db.exec("ANALYZE sqlite_schema");
		return upgrade;
	}

	/** SQLite's plan for a `find` on collection `name` (the plan tests). */
	explainFind(name: string, filter: Filter, options: FindOptions = {}): string[] {
		return (this.collection(name) as unknown as SqliteCollection<Doc>).explainFind(filter, options);
	}

	/** SQLite's plan for a `findMerged` on collection `name` (the plan tests). */
	explainFindMerged(name: string, branches: readonly Filter[], options: MergedFindOptions): string[] {
		return (this.collection(name) as unknown as SqliteCollection<Doc>).explainFindMerged(branches, options);
	}

	/** Runs `sql` on its own, after this turn's writes are committed (tests, pragmas). */
	exec(sql: string): void {
		this.commitGroup();
		this.db.exec(sql);
	}

	/** Runs `sql` within the transaction under way (a collection's table and indexes). */
	execInTransaction(sql: string): void {
		this.db.exec(sql);
	}

	private checkOpen(): void {
		if (this.closed) throw new Error("the document store is closed");
	}
}

/** The transaction of one turn's writes: `committed` settles when it is committed or rolled back. */
class WriteGroup {
	readonly committed: Promise<void>;
	/** Writes that joined the group so far. */
	writes = 0;
	resolve!: () => void;
	reject!: (err: unknown) => void;

	constructor() {
		this.committed = new Promise<void>((resolve, reject) => {
			this.resolve = resolve;
			this.reject = reject;
		});
		// A group whose every write failed on its own has nobody waiting when the commit fails.
		this.committed.catch(() => undefined);
	}
}

function registerRegexFunction(db: DatabaseSync): void {
	const compiled = new BoundedCache<string, RegExp>({ ttlMs: Infinity, maxEntries: REGEX_CACHE_SIZE });
	db.function(REGEX_FUNCTION, { deterministic: true }, (pattern, value) => {
		if (typeof pattern !== "string" || typeof value !== "string") return 0;
		let regex = compiled.get(pattern);
		if (regex === undefined) {
			const slash = pattern.indexOf("/");
			regex = new RegExp(pattern.slice(slash + 1), pattern.slice(0, slash));
			compiled.set(pattern, regex);
		}
		return regex.test(value) ? 1 : 0;
	});
}

class SqliteCollection<T extends Doc> implements Collection<T> {
	private readonly table: string;
	private readonly tableName: string;
	private created = false;
	private arrays: Set<string> | null = null;
	private fieldColumns: FieldColumns | null = null;
	/**
	 * The SQL and parameters of recent reads by their query's exact text (query-key.ts): the
	 * translation costs tens of microseconds a query, and a list's page runs the same ones again.
	 * Dropped whenever what the translation reads changes (array paths, columns).
	 */
	private readonly translations = new BoundedCache<string, Translation>({ ttlMs: Infinity, maxEntries: TRANSLATIONS_KEPT });

	constructor(
		readonly name: string,
		private readonly store: SqliteDocumentStore
	) {
		this.tableName = `c_${name}`;
		this.table = `"${this.tableName}"`;
	}

	async ensureIndex(spec: IndexSpec): Promise<void> {
		await this.write(() => {
			if (this.createIndex(spec)) this.store.execInTransaction("ANALYZE sqlite_schema");
		});
	}

	async ensureArrayField(field: string): Promise<void> {
		// Refuses a field name no JSON path can spell, before any column is named after it.
		jsonPath(field);
		await this.write(() => this.addColumns([field], true));
	}

	async hasIndex(spec: IndexSpec): Promise<boolean> {
		return this.indexStatements(spec, COLUMN).every(index => this.indexExists(index.name));
	}

	private indexExists(name: string): boolean {
		return this.store.statement("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?1").get(name) !== undefined;
	}

	/** Writes `docs` and creates `indexes` inside the caller's transaction (the NeDB import). */
	importInTransaction(docs: Doc[], indexes: IndexSpec[]): void {
		this.prepare();
		for (const doc of docs) {
			this.insertRow(this.rowOf(doc as T));
		}
		let created = false;
		for (const spec of indexes) created = this.createIndex(spec) || created;
		if (created) this.store.execInTransaction("ANALYZE sqlite_schema");
	}

	/**
	 * Rebuilds on columns (inside the caller's transaction) the expression indexes among
	 * `indexes` (name → its CREATE statement) that the port's naming made, taking each out of
	 * `indexes`; those left are not the port's. Returns how many it rebuilt.
	 */
	upgradeIndexes(indexes: Map<string, string>): number {
		this.prepare();
		const specs: IndexSpec[] = [];
		for (const name of indexes.keys()) {
			const spec = this.specNamed(name);
			if (spec === null) continue;
			const old = this.indexStatements(spec, EXPRESSION);
			// The same statement, as SQLite keeps it, is the proof that `spec` made the index.
			if (!old.every(index => indexes.get(index.name) === index.sql.replace(" IF NOT EXISTS", ""))) continue;
			specs.push(spec);
			for (const index of old) indexes.delete(index.name);
		}
		this.addColumns(specs.flatMap(spec => Object.keys(spec.fields)));
		let rebuilt = 0;
		for (const spec of specs) {
			for (const index of this.indexStatements(spec, EXPRESSION)) this.store.execInTransaction(`DROP INDEX ${quoteName(index.name)}`);
			this.createIndex(spec);
			rebuilt += 1;
		}
		return rebuilt;
	}

	/** The specification `indexStatements` names `name` after, or null when `name` is not such a name. */
	private specNamed(name: string): IndexSpec | null {
		const prefix = `ix:${this.name}:`;
		if (!name.startsWith(prefix)) return null;
		let rest = name.slice(prefix.length);
		const flag = (suffix: string): boolean => {
			if (!rest.endsWith(suffix)) return false;
			rest = rest.slice(0, -suffix.length);
			return true;
		};
		const sparse = flag(":sparse");
		const unique = flag(":unique");
		const fields: Record<string, 1 | -1> = {};
		for (const key of rest.split(",")) {
			if (key.startsWith("-")) fields[key.slice(1)] = -1;
			else fields[key] = 1;
		}
		const spec: IndexSpec = { fields, ...(unique ? { unique } : {}), ...(sparse ? { sparse } : {}) };
		try {
			return this.indexStatements(spec, COLUMN)[0]?.name === name ? spec : null;
		} catch {
			return null;
		}
	}

	/** Adds the value columns (or with `json` the JSON columns) of `fields` that the table lacks, each filled from every document's text. */
	private addColumns(fields: string[], json = false): void {
		const known = new Set(json ? this.columns().jsonFields : this.columns().fields);
		const missing = [...new Set(fields)].filter(field => field !== "_id" && !known.has(field));
		if (missing.length === 0) return;
		for (const field of missing) this.store.execInTransaction(`ALTER TABLE ${this.table} ADD COLUMN ${columnOf(field, json)}`);
		this.store.execInTransaction(`UPDATE ${this.table} SET ${missing.map(field => `${columnOf(field, json)} = ${columnValue(field, "doc", json)}`).join(", ")}`);
		this.fieldColumns = null;
		this.translations.invalidate();
	}

	/**
	 * Runs an index's statements unless it exists (adding the columns it needs), and gives the
	 * planner statistics for it (what ANALYZE would write for a large collection whose every index
	 * key narrows the rows by 4): without them SQLite takes an equality prefix for a handful of
	 * rows, sorts them in a temporary B-tree and picks whichever index is smallest, where a page
	 * must read the index that keeps the list's order and stop after pageSize + 1 rows. Returns
	 * whether it created any; the caller then loads the statistics (ANALYZE sqlite_schema).
	 */
	private createIndex(spec: IndexSpec): boolean {
		const statements = this.indexStatements(spec, COLUMN);
		if (statements.every(index => this.indexExists(index.name))) return false;
		this.addColumns(Object.keys(spec.fields));
		let created = false;
		for (const index of statements) {
			if (this.indexExists(index.name)) continue;
			this.store.execInTransaction(index.sql);
			const rows = [ASSUMED_ROWS];
			for (let i = 1; i <= index.columns; i++) rows.push(Math.max(1, Math.round(ASSUMED_ROWS / 4 ** i)));
			if (index.unique) rows[index.columns] = 1;
			this.store.statement("DELETE FROM sqlite_stat1 WHERE tbl = ?1 AND idx = ?2").run(this.tableName, index.name);
			this.store.statement("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?1, ?2, ?3)").run(this.tableName, index.name, rows.join(" "));
			created = true;
		}
		return created;
	}

	private indexStatements(spec: IndexSpec, fieldSql: FieldSql): IndexStatement[] {
		const fields = Object.entries(spec.fields);
		if (fields.length === 0) throw new Error("an index needs at least one field");
		// Refuses a field name no JSON path can spell, before any column is named after it.
		for (const [field] of fields) jsonPath(field);
		const expressions = fields.map(([field]) => fieldSql(field));
		const columns = fields.map(([, direction], i) => `${expressions[i]} ${direction === -1 ? "DESC" : "ASC"}`);
		const name = `ix:${this.name}:${fields.map(([field, direction]) => (direction === -1 ? `-${field}` : field)).join(",")}${spec.unique ? ":unique" : ""}${spec.sparse ? ":sparse" : ""}`;
		const unique = spec.unique ?? false;
		const where = spec.sparse ? ` WHERE ${expressions.map(e => `${e} IS NOT NULL`).join(" OR ")}` : "";
		const statements = [
			{ name, columns: fields.length, unique, sql: `CREATE ${unique ? "UNIQUE " : ""}INDEX IF NOT EXISTS ${quoteName(name)} ON ${this.table} (${columns.join(", ")})${where}` }
		];
		if (unique && !spec.sparse) {
			// SQLite's unique index lets NULLs repeat; MongoDB's holds a missing field (null) once per key.
			const nullable = expressions.filter(e => e !== "_id");
			if (nullable.length > 0) {
				const keys = expressions.map(e => (e === "_id" ? e : `ifnull(${e}, x'')`));
				const nulls = `${name}:nulls`;
				const sql = `CREATE UNIQUE INDEX IF NOT EXISTS ${quoteName(nulls)} ON ${this.table} (${keys.join(", ")}) WHERE ${nullable.map(e => `${e} IS NULL`).join(" OR ")}`;
				statements.push({ name: nulls, columns: fields.length, unique, sql });
			}
		}
		return statements;
	}

	async insert(doc: T): Promise<T> {
		const row = this.rowOf(doc);
		// One statement unless the document has arrays where none were noted (notePaths).
		await this.write(() => this.insertRow(row), () => this.notedAll(row.paths));
		return doc;
	}

	/** A document as its row: its `_id`, its JSON value and that value's array paths (arrayPaths). */
	private rowOf(doc: T): { _id: string; json: unknown; paths: Set<string> } {
		const { _id, ...fields } = doc;
		if (typeof _id !== "string") throw new Error("a document needs a string _id");
		const json = toJson(fields);
		return { _id, json, paths: arrayPaths(json) };
	}

	private insertRow({ _id, json, paths }: { _id: string; json: unknown; paths: Set<string> }): void {
		this.notePaths(paths);
		this.store.statement(this.columns().insert()).run(_id, JSON.stringify(json));
	}

	async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
		const { rows, projected } = await this.readSettled(() => {
			const { sql, params, projected } = this.findSql(filter, options);
			return { rows: this.store.statement(sql).all(...params) as Row[], projected: projected ?? null };
		});
		if (projected === null) return rows.map(row => toDoc<T>(row._id as string, row.doc as string));
		return rows.map(row => {
			const doc: Record<string, unknown> = { _id: row._id };
			projected.forEach((field, i) => {
				const value = row[`p${i}`];
				if (typeof value === "string") setField(doc, field, decodeJson(value));
			});
			return doc as T;
		});
	}

	/** SQLite's plan for `find(filter, options)`: one line per step, as EXPLAIN QUERY PLAN words it. */
	explainFind(filter: Filter, options: FindOptions = {}): string[] {
		return this.read(() => {
			const { sql, params } = this.findSql(filter, options);
			return (this.store.statement(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Row[]).map(row => String(row.detail));
		});
	}

	private findSql(filter: Filter, options: FindOptions): Translation {
		return this.translated(["find", filter, options], () => this.translateFind(filter, options));
	}

	private translateFind(filter: Filter, options: FindOptions): Translation {
		const translator = this.translator();
		const where = translator.where(filter);
		const projected = options.projection ? Object.keys(options.projection).filter(field => field !== "_id") : null;
		// A projected field's JSON column holds what `->` reads from the document, without parsing it.
		const { jsonByPath } = this.columns();
		const valueOf = (field: string) => jsonByPath.get(jsonPath(field)) ?? `doc -> ${sqlString(jsonPath(field))}`;
		const columns = projected === null ? "doc" : projected.map((field, i) => `${valueOf(field)} AS p${i}`).join(", ");
		let sql = `SELECT _id${columns === "" ? "" : `, ${columns}`} FROM ${this.table} WHERE ${where}`;
		const order = options.sort ? translator.orderBy(options.sort, filter) : "";
		if (order !== "") sql += ` ORDER BY ${order}`;
		// `?N + 0`, not a bare parameter: SQLite's planner reads a bare LIMIT parameter's value, so the
		// statement was prepared again at every execution (a page's branch read took 4-5 times as
		// long); a limit the planner knows (a literal) makes it sort keyset-page matches in a temporary
		// B-tree instead of reading the index in order (the plan tests show it).
		if (options.limit || options.skip) sql += ` LIMIT ${translator.param(options.limit || -1)} + 0 OFFSET ${translator.param(options.skip ?? 0)} + 0`;
		return { sql, params: translator.params, projected };
	}

	async findMerged(branches: readonly Filter[], options: MergedFindOptions): Promise<T[]> {
		const rows = await this.readSettled(() => {
			const { sql, params } = this.mergedSql(branches, options);
			return this.store.statement(sql).all(...params) as Row[];
		});
		return rows.map(row => toDoc<T>(row._id as string, row.doc as string));
	}

	explainFindMerged(branches: readonly Filter[], options: MergedFindOptions): string[] {
		return this.read(() => {
			const { sql, params } = this.mergedSql(branches, options);
			return (this.store.statement(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Row[]).map(row => String(row.detail));
		});
	}

	/**
	 * One statement for findMerged: each branch's first `limit` rows in `sort` order as their
	 * rowids and sort keys, which the index serving the branch holds (field columns: so no
	 * document is read there), merged by SQLite and cut to `limit` (UNION: a row of several branches counts once),
	 * then the documents of those rows alone. Within one statement every branch sees the same data.
	 */
	private mergedSql(branches: readonly Filter[], options: MergedFindOptions): Translation {
		return this.translated(["merged", branches, options], () => this.translateMerged(branches, options));
	}

	/** `translate()`'s answer, kept for the query's exact text. */
	private translated(query: unknown, translate: () => Translation): Translation {
		const key = queryKey(query);
		if (key === undefined) return translate();
		let translation = this.translations.get(key);
		if (translation === undefined) {
			translation = translate();
			this.translations.set(key, translation);
		}
		return translation;
	}

	private translateMerged(branches: readonly Filter[], options: MergedFindOptions): Translation {
		const keys = Object.entries(options.sort);
		if (keys.length === 0 || branches.length === 0) throw new Error("a merged find needs a sort and at least one branch");
		const arrays = this.arrayPaths();
		const { byPath: columns, jsonByPath: jsonColumns } = this.columns();
		const params: SqlParam[] = [];
		const arms = branches.map(branch => {
			const translator = new FilterTranslator(arrays, "doc", params.length + 1, columns, jsonColumns);
			const values = keys.map(([field], i) => `${translator.fieldValue(field)} AS k${i}`).join(", ");
			const where = translator.where(branch);
			const order = translator.orderBy(options.sort, branch);
			// `+ 0`: a limit the planner cannot read, as in findSql.
			const limit = translator.param(options.limit);
			params.push(...translator.params);
			return `SELECT * FROM (SELECT rowid AS r, ${values} FROM ${this.table} WHERE ${where}${order === "" ? "" : ` ORDER BY ${order}`} LIMIT ${limit} + 0)`;
		});
		const merged = (prefix: string) => keys.map(([, direction], i) => `${prefix}k${i} ${direction === -1 ? "DESC" : "ASC"}`).join(", ");
		params.push(options.limit);
		const top = `${arms.join(" UNION ")} ORDER BY ${merged("")} LIMIT ?${params.length} + 0`;
		return { sql: `SELECT m._id, m.doc FROM (${top}) AS w JOIN ${this.table} AS m ON m.rowid = w.r ORDER BY ${merged("w.")}`, params };
	}

	async findOne(filter: Filter): Promise<T | null> {
		const [doc] = await this.find(filter, { limit: 1 });
		return doc ?? null;
	}

	async count(filter: Filter): Promise<number> {
		return this.readSettled(() => {
			const translator = this.translator();
			const where = translator.where(filter);
			const row = this.store.statement(`SELECT count(*) AS n FROM ${this.table} WHERE ${where}`).get(...translator.params) as Row;
			return Number(row.n);
		});
	}

	async estimatedCount(): Promise<number> {
		return this.readSettled(() => Number((this.store.statement(`SELECT count(*) AS n FROM ${this.table}`).get() as Row).n));
	}

	async update(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<number> {
		checkUpdate(update);
		return this.write(() => {
			const rows = this.select(filter, options.multi ? undefined : 1);
			for (const row of rows) this.rewrite(row, update);
			if (rows.length > 0 || !options.upsert) return rows.length;
			this.upsert(filter, update);
			return 1;
		});
	}

	async findOneAndUpdate(filter: Filter, update: Update, options: { upsert?: boolean } = {}): Promise<T | null> {
		checkUpdate(update);
		return this.write(() => {
			const [row] = this.select(filter, 1);
			if (row) return toDoc<T>(row._id as string, this.rewrite(row, update));
			return options.upsert ? this.upsert(filter, update) : null;
		});
	}

	async remove(filter: Filter, options: { multi?: boolean } = {}): Promise<number> {
		return this.write(() => {
			const translator = this.translator();
			const where = translator.where(filter);
			const sql = options.multi
				? `DELETE FROM ${this.table} WHERE ${where}`
				: `DELETE FROM ${this.table} WHERE _id = (SELECT _id FROM ${this.table} WHERE ${where} LIMIT 1)`;
			return Number(this.store.statement(sql).run(...translator.params).changes);
		});
	}

	forgetSchema(): void {
		this.arrays = null;
		this.fieldColumns = null;
		this.translations.invalidate();
	}

	/** A transaction that may have created the table or columns, or noted array paths, was rolled back. */
	rolledBack(): void {
		this.forgetSchema();
		this.created = false;
	}

	private translator(): FilterTranslator {
		const columns = this.columns();
		return new FilterTranslator(this.arrayPaths(), "doc", 1, columns.byPath, columns.jsonByPath);
	}

	private columns(): FieldColumns {
		if (this.fieldColumns === null) {
			const rows = this.store.statement("SELECT name FROM pragma_table_info(?1)").all(this.tableName) as Row[];
			const columns = rows.map(row => columnNamed(String(row.name))).filter((column): column is FieldColumn => column !== null);
			this.fieldColumns = new FieldColumns(this.table, columns);
		}
		return this.fieldColumns;
	}

	private arrayPaths(): Set<string> {
		if (this.arrays === null) {
			const rows = this.store.statement("SELECT path FROM _array_paths WHERE collection = ?1").all(this.name) as Row[];
			this.arrays = new Set(rows.map(row => row.path as string));
		}
		return this.arrays;
	}

	/** Whether every one of a document's array paths (arrayPaths) is noted already (notePaths then writes nothing). */
	private notedAll(paths: Set<string>): boolean {
		const known = this.arrayPaths();
		for (const found of paths) if (!known.has(found)) return false;
		return true;
	}

	/** Records the array paths (arrayPaths) of a document being written (inside the write's transaction). */
	private notePaths(paths: Set<string>): void {
		const known = this.arrayPaths();
		for (const found of paths) {
			if (known.has(found)) continue;
			this.store.statement("INSERT OR IGNORE INTO _array_paths (collection, path) VALUES (?1, ?2)").run(this.name, found);
			known.add(found);
			this.translations.invalidate();
		}
	}

	private select(filter: Filter, limit: number | undefined): Row[] {
		const translator = this.translator();
		const where = translator.where(filter);
		const sql = `SELECT _id, doc FROM ${this.table} WHERE ${where}${limit === undefined ? "" : ` LIMIT ${limit}`}`;
		return this.store.statement(sql).all(...translator.params) as Row[];
	}

	/** Applies `update` to a selected row and writes it back; returns the document's text as stored (decoded only where asked for). */
	private rewrite(row: Row, update: Update): string {
		const doc = toDoc<T>(row._id as string, row.doc as string);
		const columns = this.columns();
		const before = columns.keys(doc);
		applyUpdate(doc, update, this.elementMatcher);
		const { _id, ...fields } = doc;
		const json = toJson(fields);
		const text = JSON.stringify(json);
		this.notePaths(arrayPaths(json));
		this.store.statement(columns.update(before, columns.keys(doc))).run(_id, text);
		return text;
	}

	/** Inserts what MongoDB would: the filter's equality fields with the update applied, `_id` from the filter or new. */
	private upsert(filter: Filter, update: Update): T {
		const seeded = equalityFields(filter);
		const id = seeded._id ?? randomUUID();
		if (typeof id !== "string") throw new Error("an upsert needs a string _id");
		const doc = { ...seeded, _id: id };
		applyUpdate(doc, update, this.elementMatcher);
		const { _id, ...fields } = doc;
		const json = toJson(fields);
		const text = JSON.stringify(json);
		this.notePaths(arrayPaths(json));
		this.store.statement(this.columns().insert()).run(_id, text);
		return toDoc<T>(_id, text);
	}

	/** `$pull`'s condition answered by the same translation as queries, over the array's elements. */
	private readonly elementMatcher: ElementMatcher = (elements, condition) => {
		const elementsJson = toJson(elements);
		const elementArrays = new Set<string>();
		for (const element of elementsJson as unknown[]) arrayPaths(element, "", elementArrays);
		const translator = new FilterTranslator(elementArrays, "?1", 2);
		const where = translator.elementCondition(condition, "e");
		const rows = this.store.statement(`SELECT e.key AS k FROM json_each(?1) AS e WHERE ${where}`).all(JSON.stringify(elementsJson), ...translator.params) as Row[];
		const matches = elements.map(() => false);
		for (const row of rows) matches[Number(row.k)] = true;
		return matches;
	};

	private prepare(): void {
		this.store.sync();
		this.ensureTable();
	}

	private read<R>(work: () => R): R {
		try {
			this.prepare();
			return work();
		} catch (err) {
			throw mapSqliteError(this.name, err);
		}
	}

	/** `read`, answered once what it read is committed. */
	private async readSettled<R>(work: () => R): Promise<R> {
		const result = this.read(work);
		try {
			await this.store.settled();
		} catch (err) {
			throw mapSqliteError(this.name, err);
		}
		return result;
	}

	/** Runs `work` as one write of the store's group; `oneStatement` (asked once the table is prepared) as for groupWrite. */
	private async write<R>(work: () => R, oneStatement: () => boolean = () => false): Promise<R> {
		try {
			this.prepare();
			return await this.store.groupWrite(work, oneStatement());
		} catch (err) {
			// What the transaction noted may have been rolled back: read it again.
			this.forgetSchema();
			throw mapSqliteError(this.name, err);
		}
	}

	private ensureTable(): void {
		if (this.created) return;
		this.store.execInTransaction(`CREATE TABLE IF NOT EXISTS ${this.table} (_id TEXT PRIMARY KEY NOT NULL, doc TEXT NOT NULL)`);
		this.created = true;
	}
}

/** A read's SQL, its parameters, and the fields of a projection (null: whole documents). */
interface Translation {
	sql: string;
	params: readonly SqlParam[];
	projected?: readonly string[] | null;
}

/** Per collection: enough for the queries of a few pages of each list in use. */
const TRANSLATIONS_KEPT = 512;

function quoteName(name: string): string {
	return `"${name.replaceAll('"', '""')}"`;
}

function toDoc<T>(id: string, text: string): T {
	// Set on the parsed object rather than spread with it into a new one: copying every field
	// cost a sixth as much again as the parse (a ListMemos page decodes 51 memos).
	const doc = decodeJson(text) as Record<string, unknown>;
	doc._id = id;
	return doc as T;
}

function setField(doc: Record<string, unknown>, field: string, value: unknown): void {
	const keys = field.split(".");
	const last = keys.pop() as string;
	let node = doc;
	for (const key of keys) {
		if (typeof node[key] !== "object" || node[key] === null) node[key] = {};
		node = node[key] as Record<string, unknown>;
	}
	node[last] = value;
}
