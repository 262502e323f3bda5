import { DuplicateKeyError, StorageError, type StorageFailureCode } from "../document-store.js";

/** SQLite's result codes (https://sqlite.org/rescode.html) that the store tells apart. */
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;
const SQLITE_CONSTRAINT_UNIQUE = 2067;

/** Primary result codes that say the storage, not the statement, failed. */
const STORAGE_FAILURES: ReadonlyMap<number, StorageFailureCode> = new Map([
	[3, "EROFS"], // SQLITE_PERM
	[5, "EBUSY"], // SQLITE_BUSY: another process held the write lock past the busy time-out
	[6, "EBUSY"], // SQLITE_LOCKED
	[8, "EROFS"], // SQLITE_READONLY
	[10, "EIO"], // SQLITE_IOERR
	[11, "EIO"], // SQLITE_CORRUPT
	[13, "ENOSPC"], // SQLITE_FULL: the disk, or the database's max_page_count
	[14, "EIO"], // SQLITE_CANTOPEN
	[26, "EIO"] // SQLITE_NOTADB
]);

interface SqliteError {
	code: "ERR_SQLITE_ERROR";
	errcode: number;
	message: string;
}

export function isSqliteError(err: unknown): err is SqliteError {
	return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "ERR_SQLITE_ERROR";
}

/** The port's StorageError for a failure of the storage itself, or null for any other error. */
export function storageFailure(err: unknown): StorageError | null {
	if (!isSqliteError(err)) return null;
	const code = STORAGE_FAILURES.get(err.errcode & 0xff);
	return code === undefined ? null : new StorageError(code, `document store: ${err.message} (SQLite code ${err.errcode})`, { cause: err });
}

/**
 * A clash on `_id` or a unique index becomes the port's DuplicateKeyError, a failing storage
 * its StorageError; anything else is passed on.
 */
export function mapSqliteError(collection: string, err: unknown): unknown {
	if (!isSqliteError(err)) return err;
	if (err.errcode === SQLITE_CONSTRAINT_PRIMARYKEY || err.errcode === SQLITE_CONSTRAINT_UNIQUE) {
		return new DuplicateKeyError(collection, err.errcode === SQLITE_CONSTRAINT_PRIMARYKEY ? "duplicate key on _id" : "duplicate key on a unique index");
	}
	return storageFailure(err) ?? err;
}
