import type { BlobStore } from "./blob-store.js";
import { LocalBlobStore } from "./local-blob-store.js";
import type { S3Options } from "./s3-blob-store.js";

/**
 * The blob store a process uses: S3 when it is configured (cluster), otherwise files under
 * `dir` (embedded). Start-up is the moment to create the bucket and sweep what a crash left.
 */
export async function openBlobStore(options: { s3?: S3Options; dir: string }): Promise<BlobStore> {
	if (options.s3) {
		// Only then: the S3 client and its XML parsers add ~50 modules to a process's start and memory.
		const { S3BlobStore } = await import("./s3-blob-store.js");
		const store = new S3BlobStore(options.s3);
		await store.ensureBucket();
		return store;
	}
	const store = new LocalBlobStore({ dir: options.dir });
	await store.removeStaleTemporaries();
	return store;
}
