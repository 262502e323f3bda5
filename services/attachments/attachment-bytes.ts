import { Readable, Transform, type TransformCallback } from "node:stream";
import { fileTypeFromBuffer } from "file-type";
import type { BlobInfo, BlobStore, PutOptions } from "../../shared/blob/blob-store.js";
import { generateId } from "../../shared/ids.js";

/** What file-type needs to recognise every format it knows. */
const SNIFF_BYTES = 4100;

/** A fresh blob key for an attachment's bytes: a re-used attachment id never meets an old blob. */
export function newBlobKey(): string {
	return `attachments/${generateId()}`;
}

/** Passes bytes through unchanged and keeps a copy of the first SNIFF_BYTES of them. */
class HeadKeeper extends Transform {
	private readonly parts: Buffer[] = [];
	private kept = 0;

	override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		if (this.kept < SNIFF_BYTES) {
			const part = chunk.subarray(0, SNIFF_BYTES - this.kept);
			this.parts.push(Buffer.from(part));
			this.kept += part.length;
		}
		done(null, chunk);
	}

	head(): Buffer {
		return Buffer.concat(this.parts);
	}
}

export interface StoredBytes extends BlobInfo {
	/** The first bytes, for sniffing the type. */
	head: Buffer;
}

/**
 * Streams `body` (`size` bytes, or whatever it carries when unknown) into `key`; nothing beyond
 * the first few KiB is held in memory. Not `durable`: a staged chunk; `hash`: one running over
 * the chunks of an upload (blob-store.ts, PutOptions).
 */
export function storeBytes(blobs: BlobStore, key: string, body: Readable, options: Pick<PutOptions, "size" | "durable" | "hash">): Promise<StoredBytes> {
	return withHead(body, bytes => blobs.put(key, bytes, options));
}

/** `write` given `body`'s bytes, with their first few KiB kept for sniffing. */
export async function withHead(body: Readable, write: (bytes: Readable) => Promise<BlobInfo>): Promise<StoredBytes> {
	const keeper = new HeadKeeper();
	body.on("error", err => keeper.destroy(err));
	const info = await write(body.pipe(keeper));
	return { ...info, head: keeper.head() };
}

/** Zero bytes, for an attachment created with neither content nor a link (contract 8.2). */
export function emptyBody(): Readable {
	return Readable.from([], { objectMode: false });
}

/** The first bytes of a file whose next part begins with `next`, as far as sniffing needs them. */
export function extendHead(head: Buffer, next: Buffer): Buffer {
	return head.length >= SNIFF_BYTES ? head : Buffer.concat([head, next]).subarray(0, SNIFF_BYTES);
}

/** The type the bytes' signature tells, or "". */
export async function sniffType(head: Buffer): Promise<string> {
	if (head.length === 0) return "";
	return (await fileTypeFromBuffer(head))?.mime ?? "";
}
