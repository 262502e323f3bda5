import { DuplicateKeyError } from "../document-store.js";

/** SQLite's result codes (https://sqlite.org/rescode.html) that the store tells apart. */
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;
const SQLITE_CONSTRAINT_UNIQUE = 2067;

interface SqliteError {
	code: "ERR_SQLITE_ERROR";
	errcode: number;
	message: string;
}

export function isSqliteError(err: unknown): err is SqliteError {
	return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "ERR_SQLITE_ERROR";
}

/** The primary result code of an extended one (the low byte). */
export function primaryCode(err: SqliteError): number {
	return err.errcode & 0xff;
}

/** A clash on `_id` or a unique index becomes the port's DuplicateKeyError; anything else is passed on. */
export function mapWriteError(collection: string, err: unknown): unknown {
	if (!isSqliteError(err)) return err;
	if (err.errcode === SQLITE_CONSTRAINT_PRIMARYKEY || err.errcode === SQLITE_CONSTRAINT_UNIQUE) {
		return new DuplicateKeyError(collection, err.errcode === SQLITE_CONSTRAINT_PRIMARYKEY ? "duplicate key on _id" : "duplicate key on a unique index");
	}
	return err;
}
