import mongoose from "mongoose";
import { DuplicateKeyError, StorageError } from "./document-store.js";

const { MongoNetworkError, MongoServerSelectionError, MongoNotConnectedError, MongoTopologyClosedError, MongoServerClosedError, MongoOperationTimeoutError, MongoServerError } = mongoose.mongo;

/** Server error codes (https://www.mongodb.com/docs/manual/reference/error-codes/) that the store tells apart. */
const DUPLICATE_KEY = new Set([11000, 11001]);
/** The operation's own bound ran out: maxTimeMS, or a write concern not met in time. */
const TIMED_OUT = new Set([50, 64, 262]);
/** A failover or shutdown under way: a primary stepping down, none elected yet, a node stopping. */
const NO_PRIMARY = new Set([91, 189, 10107, 11600, 11602, 13435, 13436]);

/**
 * The port's errors for a driver error: duplicate keys stay DuplicateKeyError; failovers, lost
 * connections and operations out of time become StorageError, which the gateway answers with
 * 503 and Retry-After rather than 500 (issue 21.3). Anything else is passed on as it is.
 */
export function mapMongoError(collection: string, err: unknown): unknown {
	if (err instanceof MongoServerError) {
		const code = typeof err.code === "number" ? err.code : -1;
		if (DUPLICATE_KEY.has(code)) return new DuplicateKeyError(collection, `duplicate key ${JSON.stringify((err as { keyValue?: unknown }).keyValue ?? null)}`);
		if (TIMED_OUT.has(code)) return new StorageError("ETIMEDOUT", `the document store did not finish in time on ${collection}`, { cause: err });
		if (NO_PRIMARY.has(code) || err.hasErrorLabel("RetryableWriteError")) return new StorageError("ENOTCONN", `the document store has no primary for ${collection} (failover under way)`, { cause: err });
		return err;
	}
	if (err instanceof MongoOperationTimeoutError) return new StorageError("ETIMEDOUT", `the document store did not finish in time on ${collection}`, { cause: err });
	if (
		err instanceof MongoNetworkError ||
		err instanceof MongoServerSelectionError ||
		err instanceof MongoNotConnectedError ||
		err instanceof MongoTopologyClosedError ||
		err instanceof MongoServerClosedError
	) {
		return new StorageError("ENOTCONN", `the document store is unreachable for ${collection}`, { cause: err });
	}
	return err;
}
