import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { once } from "node:events";
import { Upload, type HttpRequest, type HttpResponse } from "tus-js-client";

/** The stock tus client (tus-js-client, Node) against our tus endpoint, and test files made for it. */

const MiB = 1024 * 1024;

/** Byte `i` of every pattern file: a sequence that shows any shifted, lost or repeated range. */
function patternChunk(offset: number, length: number): Buffer {
	const bytes = Buffer.alloc(Math.ceil(length / 4) * 4);
	for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32LE(((offset + i) * 2654435761) >>> 0, i);
	return bytes.subarray(0, length);
}

/**
 * Writes a pattern file of `size` bytes one MiB at a time, yielding to the event loop between
 * pieces (no multi-second synchronous fill), and answers its SHA-256.
 */
export async function writePatternFile(path: string, size: number): Promise<string> {
	const hash = createHash("sha256");
	const out = createWriteStream(path);
	for (let offset = 0; offset < size; offset += MiB) {
		const piece = patternChunk(offset, Math.min(MiB, size - offset));
		hash.update(piece);
		if (!out.write(piece)) await once(out, "drain");
	}
	out.end();
	await once(out, "finish");
	return hash.digest("hex");
}

/** SHA-256 and length of a response body, read as it streams in. */
export async function digestOfBody(body: ReadableStream<Uint8Array> | null): Promise<{ sha: string; size: number }> {
	const hash = createHash("sha256");
	let size = 0;
	for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
		hash.update(chunk);
		size += chunk.length;
	}
	return { sha: hash.digest("hex"), size };
}

/** The bytes `start` … `end` (inclusive) of any pattern file. */
export function patternBytes(start: number, end: number): Buffer {
	return patternChunk(start, end - start + 1);
}

export interface TusUploadOptions {
	endpoint: string;
	accessToken: string;
	path: string;
	metadata: Record<string, string>;
	/** Bytes per PATCH; the whole file in one when absent (tus-js-client's default). */
	chunkSize?: number;
	uploadDataDuringCreation?: boolean;
	/** Sees every request before it is sent. */
	onRequest?: (req: HttpRequest) => void;
}

export interface TusResult {
	url: string;
	/** `attachments/{id}` from the last answer's Attachment-Name header. */
	attachment: string | null;
	lastResponse: HttpResponse;
}

/** Uploads a file with tus-js-client; resolves when the client reports success. */
export function tusUpload(options: TusUploadOptions): Promise<TusResult> {
	return new Promise((resolve, reject) => {
		const upload = new Upload(createReadStream(options.path), {
			endpoint: options.endpoint,
			headers: { Authorization: `Bearer ${options.accessToken}` },
			metadata: options.metadata,
			retryDelays: [0, 100, 300, 1000, 2000],
			removeFingerprintOnSuccess: true,
			...(options.chunkSize === undefined ? {} : { chunkSize: options.chunkSize }),
			uploadDataDuringCreation: options.uploadDataDuringCreation === true,
			onBeforeRequest: req => options.onRequest?.(req),
			onError: reject,
			onSuccess: ({ lastResponse }) => resolve({ url: upload.url as string, attachment: lastResponse.getHeader("Attachment-Name") ?? null, lastResponse })
		});
		upload.start();
	});
}
