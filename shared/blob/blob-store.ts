import type { Hash } from "node:crypto";
import type { Readable } from "node:stream";

/**
 * The blob store port (DESIGN.md, "Ports inside the code"): streamed put and get with byte
 * ranges, stat, delete. Adapters: local files (embedded) and S3 through the `minio` client.
 * A blob is never visible half-written: a failed or aborted put leaves no object behind.
 */

export interface BlobInfo {
	size: number;
	/** Hex SHA-256 of the bytes, computed while they were written. */
	sha256: string;
}

export interface BlobStat {
	size: number;
	lastModified: Date;
}

export interface BlobListing {
	key: string;
	lastModified: Date;
}

/** Inclusive byte range, as in HTTP `bytes=start-end`. */
export interface ByteRange {
	start: number;
	end: number;
}

export interface PutOptions {
	contentType?: string;
	/** The body's length, when known: a body of another length is refused. */
	size?: number;
	/**
	 * False for bytes that need not survive a crash of the machine (staged upload chunks, which
	 * mean nothing once the process that holds their session is gone): the put does not wait
	 * for the disk. The object still appears only once every byte is written.
	 */
	durable?: boolean;
	/**
	 * A running SHA-256 the bytes are added to instead of a hash of their own (the chunks of one
	 * upload, so that the whole file's hash needs no second read); the answer's `sha256` is its
	 * digest so far. A failed put may have added some bytes: the caller keeps a copy to go back to.
	 */
	hash?: Hash;
}

export interface AppendOptions extends Pick<PutOptions, "size" | "hash"> {
	/** Where the body's bytes go: 0 starts the object afresh, else its length so far. */
	offset: number;
}

export interface BlobStore {
	readonly kind: "local" | "s3";
	/**
	 * Streams `body` into `key`; the object appears only once every byte is written. Rejects,
	 * leaving any previous object untouched, when the body fails or its length differs from `size`.
	 */
	put(key: string, body: Readable, options?: PutOptions): Promise<BlobInfo>;
	/**
	 * Streams the object or one byte range of it; BlobNotFoundError when missing, RangeError
	 * when the range is malformed or does not lie inside the object.
	 */
	get(key: string, range?: ByteRange): Promise<Readable>;
	/**
	 * Makes `key` of the objects `parts`, in order, as durably and atomically as a put, without
	 * passing their bytes through this process where the store can help (one local part is
	 * renamed, one S3 part copied by the server). The parts may be gone afterwards: the caller
	 * deletes what is left of them. BlobNotFoundError when a part is missing.
	 */
	compose(parts: readonly string[], key: string): Promise<void>;
	/**
	 * Where the store can extend an object in place (local files; S3 cannot): writes `body` into
	 * `key` from `offset` on, leaving the object `offset` + the body's length long, or `offset`
	 * long when it fails. For the staged bytes of one upload, which mean nothing without their
	 * session: neither durable nor hidden while written, so that the chunks of an upload go into
	 * one object, which compose then renames, instead of an object each, which compose copies.
	 * BlobNotFoundError when the object is missing and `offset` is not 0.
	 */
	append?(key: string, body: Readable, options: AppendOptions): Promise<BlobInfo>;
	/** Null when the object does not exist. */
	stat(key: string): Promise<BlobStat | null>;
	/** Deleting a missing object is not an error. */
	delete(key: string): Promise<void>;
	/**
	 * Every object under the folder `prefix` (ending in `/`), with its modification time: for
	 * sweeping what a crash left (staged upload chunks), not a paged listing for clients.
	 */
	list(prefix: string): Promise<BlobListing[]>;
	/**
	 * Deletes every object under the folder `prefix` (ending in `/`) and the folder itself: S3
	 * has no folders, but local files do, and one emptied object by object would stay behind
	 * (an ended upload session's). A missing folder is not an error.
	 */
	deleteFolder(prefix: string): Promise<void>;
	/** Throws when the store cannot serve requests (readiness). */
	ping(): Promise<void>;
	close(): Promise<void>;
}

export class BlobNotFoundError extends Error {
	constructor(readonly key: string) {
		super(`blob not found: ${key}`);
		this.name = "BlobNotFoundError";
	}
}

/** Keys are relative paths of safe segments; anything else is a programming error. */
export const BLOB_KEY_RE = /^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;

/** A folder to list: a key followed by `/`. */
export function assertBlobFolder(prefix: string): void {
	if (!prefix.endsWith("/")) throw new Error(`invalid blob folder: ${JSON.stringify(prefix)}`);
	assertBlobKey(prefix.slice(0, -1));
}

export function assertBlobKey(key: string): void {
	if (!BLOB_KEY_RE.test(key) || key.length > 512) throw new Error(`invalid blob key: ${JSON.stringify(key)}`);
}
