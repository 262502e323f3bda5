import { createHash, type Hash } from "node:crypto";
import type { BlobInfo, ByteRange } from "./blob-store.js";

/** Range and size rules shared by the blob adapters, so both answer the port's contract alike. */

/** A chunk of a body stream as bytes; object-mode chunks are a programming error. */
export function toBytes(chunk: unknown): Uint8Array {
	if (typeof chunk === "string") return Buffer.from(chunk);
	if (chunk instanceof Uint8Array) return chunk;
	throw new TypeError("blob bodies must be byte streams");
}

/** A malformed range is refused before the store is asked. */
export function assertRangeShape(range: ByteRange): void {
	if (!Number.isSafeInteger(range.start) || !Number.isSafeInteger(range.end) || range.start < 0 || range.end < range.start) {
		throw new RangeError(`invalid byte range ${range.start}-${range.end}`);
	}
}

/** The error of a range that does not lie inside an object of `size` bytes. */
export function rangeOutside(key: string, range: ByteRange, size: number): RangeError {
	return new RangeError(`range ${range.start}-${range.end} outside blob ${key} of ${size} bytes`);
}

/**
 * Counts and hashes the bytes of a put as they pass, refusing a body longer than the size
 * announced as soon as it overflows (rather than storing a body that will be refused) and a
 * shorter one at the end.
 */
export class PutMeter {
	private readonly hash: Hash;
	private size = 0;

	/** `hash`: a running SHA-256 the bytes are added to (PutOptions.hash), else one of their own. */
	constructor(
		private readonly key: string,
		private readonly expected: number | undefined,
		private readonly carried?: Hash
	) {
		this.hash = carried ?? createHash("sha256");
	}

	/** The chunk as bytes, counted and hashed. */
	add(chunk: unknown): Uint8Array {
		const bytes = toBytes(chunk);
		this.size += bytes.length;
		if (this.expected !== undefined && this.size > this.expected) throw this.mismatch();
		this.hash.update(bytes);
		return bytes;
	}

	/** Once the body has ended: its size and SHA-256 (a carried hash goes on), or the size mismatch. */
	finish(): BlobInfo {
		if (this.expected !== undefined && this.size !== this.expected) throw this.mismatch();
		return { size: this.size, sha256: (this.carried === undefined ? this.hash : this.hash.copy()).digest("hex") };
	}

	private mismatch(): Error {
		const expected = this.expected ?? 0;
		return new Error(`blob ${this.key}: expected ${expected} bytes, got ${this.size}${this.size > expected ? " or more" : ""}`);
	}
}
