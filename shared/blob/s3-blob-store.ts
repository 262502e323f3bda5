import { IncomingMessage, type Agent } from "node:http";
import { Readable } from "node:stream";
import { Client, type BucketItem } from "minio";
import type { S3Config } from "../runtime/config.js";
import type { BlobInfo, BlobListing, BlobStat, BlobStore, ByteRange, PutOptions } from "./blob-store.js";
import { BlobNotFoundError, assertBlobFolder, assertBlobKey } from "./blob-store.js";
import { PutMeter, assertRangeShape, rangeOutside, toBytes } from "./blob-bytes.js";
import { s3Request, s3Agent } from "./s3-connections.js";

/** The bucket as configured (`S3_*` settings), and how bodies go up. */
export interface S3Options extends S3Config {
	/**
	 * Bodies up to this size go up in one PUT; larger ones as a multipart upload of parts this
	 * big. Each running put holds up to one part in memory. S3 refuses parts under 5 MiB.
	 */
	partSize?: number;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;
/**
 * Each running put holds a part (twice, while it is joined for sending): 8 concurrent 30 MiB
 * uploads held whole files with 64 MiB parts (issue 19). S3 allows 10,000 parts: 80 GB at 8 MiB.
 */
const DEFAULT_PART_SIZE = 8 * 1024 * 1024;

/**
 * Objects in one S3 bucket through the `minio` client. S3 makes an object visible only once
 * its upload completes, so a failed put leaves the previous object (or none) in place.
 *
 * We do not hand streams to minio's high-level `putObject`: without a known size it treats
 * every body as 5 TiB and takes its multipart path, which first lists the multipart uploads
 * of the key (to resume one). `s3rver` does not implement that listing, and the path neither
 * aborts the upload nor notices a source stream that fails. Instead a put buffers up to one
 * part: a body that fits is sent as one PUT of a buffer, a larger one as a multipart upload
 * driven here, aborted on any error.
 */
export class S3BlobStore implements BlobStore {
	readonly kind = "s3";
	private readonly client: Client;
	private readonly bucket: string;
	private readonly region: string;
	private readonly partSize: number;
	private readonly agent: Agent;

	constructor(options: S3Options) {
		this.partSize = options.partSize ?? DEFAULT_PART_SIZE;
		if (!Number.isSafeInteger(this.partSize) || this.partSize < MIN_PART_SIZE) {
			throw new RangeError(`S3 part size must be an integer of at least ${MIN_PART_SIZE} bytes`);
		}
		this.bucket = options.bucket;
		this.region = options.region;
		this.agent = s3Agent(options.useSSL);
		this.client = new Client({
			endPoint: options.endPoint,
			port: options.port,
			useSSL: options.useSSL,
			accessKey: options.accessKey,
			secretKey: options.secretKey,
			region: options.region,
			transportAgent: this.agent
		});
	}

	/** Creates the bucket when it is missing (start-up). */
	async ensureBucket(): Promise<void> {
		if (await s3Request(() => this.client.bucketExists(this.bucket))) return;
		try {
			await s3Request(() => this.client.makeBucket(this.bucket, this.region));
		} catch (err) {
			// Another replica starting at the same moment may have won the race.
			if (errorCode(err) !== "BucketAlreadyOwnedByYou") throw err;
		}
	}

	async put(key: string, body: Readable, options: PutOptions = {}): Promise<BlobInfo> {
		assertBlobKey(key);
		const headers: Record<string, string> = options.contentType ? { "Content-Type": options.contentType } : {};
		const meter = new PutMeter(key, options.size, options.hash);
		let info: BlobInfo;
		let pending: Uint8Array[] = [];
		let pendingBytes = 0;
		let uploadId: string | undefined;
		const parts: { part: number; etag: string }[] = [];
		const uploadPending = async (id: string): Promise<void> => {
			const part = await s3Request(() => this.client.uploadPart(
				{ bucketName: this.bucket, objectName: key, uploadID: id, partNumber: parts.length + 1, headers: {} },
				Buffer.concat(pending)
			));
			parts.push({ part: part.part, etag: part.etag });
			pending = [];
			pendingBytes = 0;
		};
		try {
			for await (const chunk of body) {
				const bytes = meter.add(chunk);
				pending.push(bytes);
				pendingBytes += bytes.length;
				if (pendingBytes > this.partSize) {
					uploadId ??= await s3Request(() => this.client.initiateNewMultipartUpload(this.bucket, key, headers));
					await uploadPending(uploadId);
				}
			}
			info = meter.finish();
			if (uploadId === undefined) {
				const bytes = Buffer.concat(pending);
				await s3Request(() => this.client.putObject(this.bucket, key, bytes, info.size, headers));
			} else {
				if (pendingBytes > 0) await uploadPending(uploadId);
				const id = uploadId;
				await s3Request(() => this.client.completeMultipartUpload(this.bucket, key, id, parts));
			}
		} catch (err) {
			if (uploadId !== undefined) {
				// The put has failed either way; a failed abort must not hide why. Parts left
				// behind are invisible and a bucket lifecycle rule can expire them.
				const id = uploadId;
				await s3Request(() => this.client.abortMultipartUpload(this.bucket, key, id)).catch(() => undefined);
			}
			throw err;
		}
		return info;
	}

	/**
	 * One part is copied by the server. Several are streamed through here into one put: S3 can
	 * compose only parts of at least 5 MiB, and the JSON chunked upload's are 4 MiB.
	 */
	async compose(parts: readonly string[], key: string): Promise<void> {
		assertBlobKey(key);
		if (parts.length === 1) {
			const part = parts[0] as string;
			assertBlobKey(part);
			await this.call(part, () => this.client.copyObject(this.bucket, key, `/${this.bucket}/${part}`));
			return;
		}
		const get = (part: string) => this.get(part);
		await this.put(
			key,
			Readable.from(
				(async function* () {
					for (const part of parts) yield* await get(part);
				})(),
				{ objectMode: false }
			)
		);
	}

	async get(key: string, range?: ByteRange): Promise<Readable> {
		assertBlobKey(key);
		if (!range) return this.call(key, () => this.client.getObject(this.bucket, key));
		assertRangeShape(range);
		const body = await this.call(key, () =>
			this.client.getPartialObject(this.bucket, key, range.start, range.end - range.start + 1)
		);
		return body instanceof IncomingMessage ? fitToRange(key, body, range) : body;
	}

	async stat(key: string): Promise<BlobStat | null> {
		assertBlobKey(key);
		try {
			const info = await s3Request(() => this.client.statObject(this.bucket, key));
			return { size: info.size, lastModified: info.lastModified };
		} catch (err) {
			if (isNotFound(err)) return null;
			throw err;
		}
	}

	async list(prefix: string): Promise<BlobListing[]> {
		assertBlobFolder(prefix);
		return s3Request(async () => {
			const found: BlobListing[] = [];
			for await (const item of this.client.listObjectsV2(this.bucket, prefix, true) as AsyncIterable<BucketItem>) {
				if (item.name !== undefined) found.push({ key: item.name, lastModified: item.lastModified });
			}
			return found;
		});
	}

	async delete(key: string): Promise<void> {
		assertBlobKey(key);
		try {
			await s3Request(() => this.client.removeObject(this.bucket, key));
		} catch (err) {
			if (!isNotFound(err)) throw err;
		}
	}

	async deleteFolder(prefix: string): Promise<void> {
		for (const { key } of await this.list(prefix)) await this.delete(key);
	}

	async ping(): Promise<void> {
		if (!(await s3Request(() => this.client.bucketExists(this.bucket)))) throw new Error(`S3 bucket ${this.bucket} does not exist`);
	}

	/** The kept-alive connections go. */
	async close(): Promise<void> {
		this.agent.destroy();
	}

	private async call<T>(key: string, request: () => Promise<T>): Promise<T> {
		try {
			return await s3Request(request);
		} catch (err) {
			if (isNotFound(err)) throw new BlobNotFoundError(key);
			if (errorCode(err) === "InvalidRange") throw new RangeError(`range outside blob ${key}`, { cause: err });
			throw err;
		}
	}
}

/**
 * Checks the span the server sent against the one asked for. S3 answers a range running past
 * the end with the bytes it has; the port refuses that, as local files do. Some S3-compatible
 * servers send more than asked (s3rver ignores an end of 0 and sends the whole object); the
 * surplus is cut here.
 */
function fitToRange(key: string, body: IncomingMessage, range: ByteRange): Readable {
	const served = servedSpan(body);
	if (!served || served.start > range.start || served.end < Math.min(range.end, served.size - 1)) {
		body.destroy();
		throw new Error(`S3 sent ${body.headers["content-range"] ?? "no Content-Range"} for range ${range.start}-${range.end} of ${key}`);
	}
	if (range.end >= served.size) {
		body.destroy();
		throw rangeOutside(key, range, served.size);
	}
	if (served.start === range.start && served.end === range.end) return body;
	return sliceStream(body, range.start - served.start, range.end - range.start + 1);
}

function servedSpan(body: IncomingMessage): { start: number; end: number; size: number } | null {
	const contentRange = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(body.headers["content-range"] ?? "");
	if (contentRange) return { start: Number(contentRange[1]), end: Number(contentRange[2]), size: Number(contentRange[3]) };
	// A server that ignores Range altogether answers 200 with the whole object.
	const length = Number(body.headers["content-length"]);
	return body.statusCode === 200 && Number.isSafeInteger(length) ? { start: 0, end: length - 1, size: length } : null;
}

function sliceStream(body: Readable, skip: number, length: number): Readable {
	return Readable.from(
		(async function* () {
			let toSkip = skip;
			let left = length;
			for await (const chunk of body) {
				const bytes = toBytes(chunk);
				const from = Math.min(toSkip, bytes.length);
				toSkip -= from;
				const part = bytes.subarray(from, from + left);
				left -= part.length;
				if (part.length > 0) yield part;
				// Leaving the loop destroys the response, so the surplus is never downloaded.
				if (left === 0) return;
			}
		})(),
		{ objectMode: false }
	);
}

function errorCode(err: unknown): string | undefined {
	const code = (err as { code?: unknown } | null)?.code;
	return typeof code === "string" ? code : undefined;
}

/** GET answers NoSuchKey with an XML body; HEAD has no body, so minio reports NotFound. */
function isNotFound(err: unknown): boolean {
	const code = errorCode(err);
	return code === "NoSuchKey" || code === "NotFound";
}
