import { randomUUID } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { mkdir, open, readdir, rename, rm, stat, unlink } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import type { Readable } from "node:stream";
import type { AppendOptions, BlobInfo, BlobListing, BlobStat, BlobStore, ByteRange, PutOptions } from "./blob-store.js";
import { BlobNotFoundError, assertBlobFolder, assertBlobKey } from "./blob-store.js";
import { PutMeter, assertRangeShape, rangeOutside, toBytes } from "./blob-bytes.js";

export interface LocalBlobStoreOptions {
	/** Root directory; a key is a path relative to it. */
	dir: string;
}

/** Temporary files older than this cannot belong to a put still running. */
const STALE_TEMPORARY_MS = 24 * 60 * 60 * 1000;

/** The bytes of one read or write: a syscall, a stream chunk and (cluster) a packet per 64 KiB cost more than the bytes (issue 19). */
const IO_BYTES = 1024 * 1024;

/**
 * Objects as plain files under `dir` (the embedded default). A put writes into `<dir>/.tmp/`
 * and renames into place, so readers see either the old bytes or all of the new ones; keys
 * cannot start with a dot, so `.tmp` never collides with an object. Unlike S3, a key cannot
 * be both an object and the parent folder of another object.
 */
export class LocalBlobStore implements BlobStore {
	readonly kind = "local";
	private readonly dir: string;
	private readonly tmpDir: string;

	constructor(options: LocalBlobStoreOptions) {
		this.dir = options.dir;
		this.tmpDir = join(options.dir, ".tmp");
	}

	async put(key: string, body: Readable, options: PutOptions = {}): Promise<BlobInfo> {
		const target = this.pathOf(key);
		await mkdir(this.tmpDir, { recursive: true });
		const tmp = join(this.tmpDir, randomUUID());
		const meter = new PutMeter(key, options.size, options.hash);
		let info: BlobInfo;
		let file: FileHandle | undefined;
		try {
			file = await open(tmp, "wx");
			await writeBatched(file, body, chunk => meter.add(chunk));
			info = meter.finish();
			// Durable before visible: after a crash the object is either absent or complete.
			if (options.durable !== false) await file.sync();
			await file.close();
			file = undefined;
			await mkdir(dirname(target), { recursive: true });
			await rename(tmp, target);
		} catch (err) {
			await file?.close();
			await rm(tmp, { force: true });
			throw err;
		}
		return info;
	}

	async compose(parts: readonly string[], key: string): Promise<void> {
		const target = this.pathOf(key);
		const sources = parts.map(part => this.pathOf(part));
		if (sources.length === 1) {
			// The one part becomes the object: made durable, then renamed into place.
			const source = sources[0] as string;
			const file = await openObject(source, parts[0] as string, "r");
			try {
				await file.sync();
			} finally {
				await file.close();
			}
			await mkdir(dirname(target), { recursive: true });
			await rename(source, target);
			return;
		}
		await mkdir(this.tmpDir, { recursive: true });
		const tmp = join(this.tmpDir, randomUUID());
		let file: FileHandle | undefined;
		try {
			file = await open(tmp, "wx");
			for (const [at, source] of sources.entries()) {
				const part = await openObject(source, parts[at] as string, "r");
				// The stream closes the part's file when it ends or fails.
				await writeBatched(file, part.createReadStream({ highWaterMark: IO_BYTES }), toBytes);
			}
			await file.sync();
			await file.close();
			file = undefined;
			await mkdir(dirname(target), { recursive: true });
			await rename(tmp, target);
		} catch (err) {
			await file?.close();
			await rm(tmp, { force: true });
			throw err;
		}
	}

	async append(key: string, body: Readable, options: AppendOptions): Promise<BlobInfo> {
		const path = this.pathOf(key);
		if (options.offset === 0) await mkdir(dirname(path), { recursive: true });
		const file = await openObject(path, key, options.offset === 0 ? "w" : "r+");
		try {
			const { size } = await file.stat();
			if (size < options.offset) throw new RangeError(`append at ${options.offset} to blob ${key} of ${size} bytes`);
			// Bytes a failed append left beyond the offset are no part of the object; a file that
			// ends at the offset (every append after a successful one) needs no call to the thread pool.
			if (size > options.offset) await file.truncate(options.offset);
			const meter = new PutMeter(key, options.size, options.hash);
			try {
				await writeBatched(file, body, chunk => meter.add(chunk), options.offset);
				return meter.finish();
			} catch (err) {
				await file.truncate(options.offset);
				throw err;
			}
		} finally {
			await file.close();
		}
	}

	async get(key: string, range?: ByteRange): Promise<Readable> {
		const path = this.pathOf(key);
		if (range) assertRangeShape(range);
		const file = await openObject(path, key, "r");
		try {
			// Reading through the handle we stat keeps size and bytes consistent even if the
			// key is overwritten meanwhile.
			const info = await file.stat();
			if (!info.isFile()) throw new BlobNotFoundError(key);
			if (range && range.end >= info.size) {
				throw rangeOutside(key, range, info.size);
			}
			return file.createReadStream({ highWaterMark: IO_BYTES, ...(range ? { start: range.start, end: range.end } : {}) });
		} catch (err) {
			await file.close();
			throw err;
		}
	}

	async stat(key: string): Promise<BlobStat | null> {
		const path = this.pathOf(key);
		try {
			const info = await stat(path);
			return info.isFile() ? { size: info.size, lastModified: info.mtime } : null;
		} catch (err) {
			if (isMissing(err)) return null;
			throw err;
		}
	}

	async delete(key: string): Promise<void> {
		const path = this.pathOf(key);
		try {
			await unlink(path);
		} catch (err) {
			if (!isMissing(err)) throw err;
		}
	}

	async list(prefix: string): Promise<BlobListing[]> {
		assertBlobFolder(prefix);
		let entries;
		try {
			entries = await readdir(join(this.dir, prefix), { recursive: true, withFileTypes: true });
		} catch (err) {
			if (isMissing(err)) return [];
			throw err;
		}
		const found: BlobListing[] = [];
		for (const entry of entries) {
			if (!entry.isFile()) continue;
			const path = join(entry.parentPath, entry.name);
			const info = await stat(path).catch((err: unknown) => {
				if (isMissing(err)) return null;
				throw err;
			});
			if (info) found.push({ key: relative(this.dir, path).split(sep).join("/"), lastModified: info.mtime });
		}
		return found;
	}

	async deleteFolder(prefix: string): Promise<void> {
		assertBlobFolder(prefix);
		await rm(join(this.dir, prefix), { recursive: true, force: true });
	}

	/** Writes and removes a probe file: `access(W_OK)` says yes to root on a read-only or full disk. */
	async ping(): Promise<void> {
		await mkdir(this.tmpDir, { recursive: true });
		const probe = join(this.tmpDir, `ping-${randomUUID()}`);
		try {
			const file = await open(probe, "wx");
			await file.close();
		} finally {
			await rm(probe, { force: true });
		}
	}

	async close(): Promise<void> {}

	/** Removes temporary files that a crash left behind; called when the store is opened. */
	async removeStaleTemporaries(): Promise<void> {
		let names: string[];
		try {
			names = await readdir(this.tmpDir);
		} catch (err) {
			if (isMissing(err)) return;
			throw err;
		}
		for (const name of names) {
			const path = join(this.tmpDir, name);
			const info = await stat(path).catch(() => null);
			if (info && Date.now() - info.mtimeMs > STALE_TEMPORARY_MS) await rm(path, { force: true });
		}
	}

	private pathOf(key: string): string {
		assertBlobKey(key);
		return join(this.dir, key);
	}
}

/**
 * A body's chunks (a socket's are 16-64 KiB) written a batch of at least IO_BYTES at a
 * time with one writev, the next batch gathered while the last is written: a write per chunk
 * cost more than the bytes (issue 19). `bytesOf` may throw (a put's meter stops an overlong body
 * early rather than fill the disk with it). From `position` on, else at the file's own position.
 */
async function writeBatched(file: FileHandle, body: Readable, bytesOf: (chunk: unknown) => Uint8Array, position?: number): Promise<void> {
	let batch: Uint8Array[] = [];
	let batchBytes = 0;
	let at = position;
	let writing: Promise<void> = Promise.resolve();
	// A failed write is awaited below; until then, it must not count as unhandled.
	const flush = async () => {
		await writing;
		writing = writeAll(file, batch, batchBytes, at);
		writing.catch(() => undefined);
		if (at !== undefined) at += batchBytes;
		batch = [];
		batchBytes = 0;
	};
	for await (const chunk of body) {
		const bytes = bytesOf(chunk);
		batch.push(bytes);
		batchBytes += bytes.length;
		if (batchBytes >= IO_BYTES) await flush();
	}
	await flush();
	await writing;
}

async function writeAll(file: FileHandle, buffers: Uint8Array[], length: number, position?: number): Promise<void> {
	if (length === 0) return;
	const { bytesWritten } = await file.writev(buffers, position);
	if (bytesWritten === length) return;
	// A short write (a full disk reports itself on the next one): the rest, from where it stopped.
	const rest = Buffer.concat(buffers, length).subarray(bytesWritten);
	let offset = 0;
	while (offset < rest.length) {
		offset += (await file.write(rest, offset, rest.length - offset, position === undefined ? null : position + bytesWritten + offset)).bytesWritten;
	}
}

/** The file of the object `key`; BlobNotFoundError when there is none. */
async function openObject(path: string, key: string, flags: string): Promise<FileHandle> {
	try {
		return await open(path, flags);
	} catch (err) {
		if (isMissing(err)) throw new BlobNotFoundError(key);
		throw err;
	}
}

/** A missing parent folder or a file where a folder should be both mean "no such object". */
function isMissing(err: unknown): boolean {
	const code = (err as NodeJS.ErrnoException | null)?.code;
	return code === "ENOENT" || code === "ENOTDIR";
}
