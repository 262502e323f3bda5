import { randomUUID } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { mkdir, open, readdir, rename, rm, stat, unlink } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import type { Readable } from "node:stream";
import type { BlobInfo, BlobListing, BlobStat, BlobStore, ByteRange } from "./blob-store.js";
import { BlobNotFoundError, assertBlobFolder, assertBlobKey } from "./blob-store.js";
import { PutMeter, assertRangeShape, rangeOutside } from "./blob-bytes.js";

export interface LocalBlobStoreOptions {
	/** Root directory; a key is a path relative to it. */
	dir: string;
}

/** Temporary files older than this cannot belong to a put still running. */
const STALE_TEMPORARY_MS = 24 * 60 * 60 * 1000;

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

	async put(key: string, body: Readable, options: { contentType?: string; size?: number } = {}): Promise<BlobInfo> {
		const target = this.pathOf(key);
		await mkdir(this.tmpDir, { recursive: true });
		const tmp = join(this.tmpDir, randomUUID());
		const meter = new PutMeter(key, options.size);
		let info: BlobInfo;
		let file: FileHandle | undefined;
		try {
			file = await open(tmp, "wx");
			// The meter stops an overlong body early rather than fill the disk with it.
			for await (const chunk of body) await writeAll(file, meter.add(chunk));
			info = meter.finish();
			// Durable before visible: after a crash the object is either absent or complete.
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
		return info;
	}

	async get(key: string, range?: ByteRange): Promise<Readable> {
		const path = this.pathOf(key);
		if (range) assertRangeShape(range);
		let file: FileHandle;
		try {
			file = await open(path, "r");
		} catch (err) {
			if (isMissing(err)) throw new BlobNotFoundError(key);
			throw err;
		}
		try {
			// Reading through the handle we stat keeps size and bytes consistent even if the
			// key is overwritten meanwhile.
			const info = await file.stat();
			if (!info.isFile()) throw new BlobNotFoundError(key);
			if (range && range.end >= info.size) {
				throw rangeOutside(key, range, info.size);
			}
			return file.createReadStream(range ? { start: range.start, end: range.end } : {});
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

async function writeAll(file: FileHandle, bytes: Uint8Array): Promise<void> {
	let offset = 0;
	while (offset < bytes.length) {
		const { bytesWritten } = await file.write(bytes, offset, bytes.length - offset);
		offset += bytesWritten;
	}
}

/** A missing parent folder or a file where a folder should be both mean "no such object". */
function isMissing(err: unknown): boolean {
	const code = (err as NodeJS.ErrnoException | null)?.code;
	return code === "ENOENT" || code === "ENOTDIR";
}
