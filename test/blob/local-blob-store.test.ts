import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBlobStore } from "../../shared/blob/local-blob-store.js";
import { openBlobStore } from "../../shared/blob/open-blob-store.js";
import { chunked, describeBlobStoreContract } from "./blob-store.contract.js";

async function tempDir(): Promise<string> {
	return mkdtemp(join(tmpdir(), "blob-local-"));
}

describeBlobStoreContract("local files", async () => {
	const dir = await tempDir();
	return {
		store: new LocalBlobStore({ dir }),
		teardown: () => rm(dir, { recursive: true, force: true }),
		strayTemporaries: () => readdir(join(dir, ".tmp")).catch(() => [])
	};
});

describe("LocalBlobStore", () => {
	let dir: string;

	beforeEach(async () => {
		dir = await tempDir();
	});

	afterEach(async () => {
		await rm(dir, { recursive: true, force: true });
	});

	test("an object is a plain file at its key under the directory", async () => {
		const store = new LocalBlobStore({ dir });
		await store.put("attachments/a1/photo.jpg", chunked(Buffer.from("jpeg bytes")));
		expect(await readFile(join(dir, "attachments/a1/photo.jpg"), "utf8")).toBe("jpeg bytes");
	});

	test("a body of many small chunks (more than one writev takes) and one not durable are stored byte for byte", async () => {
		const store = new LocalBlobStore({ dir });
		const data = randomBytes(3 * 1024 * 1024 + 5);
		const info = await store.put("small-chunks.bin", chunked(data, 100), { size: data.length });
		expect(info).toEqual({ size: data.length, sha256: createHash("sha256").update(data).digest("hex") });
		expect((await readFile(join(dir, "small-chunks.bin"))).equals(data)).toBe(true);
		await store.put("staged.bin", chunked(data), { size: data.length, durable: false });
		expect((await readFile(join(dir, "staged.bin"))).equals(data)).toBe(true);
	});

	test("ping fails when the directory cannot hold files", async () => {
		const notADir = join(dir, "file");
		await writeFile(notADir, "");
		await expect(new LocalBlobStore({ dir: notADir }).ping()).rejects.toThrow();
	});

	test("opening the store removes temporary files a crash left, but not recent ones", async () => {
		const tmp = join(dir, ".tmp");
		await (await openBlobStore({ dir })).ping();
		await writeFile(join(tmp, "stale"), "half an upload");
		await writeFile(join(tmp, "recent"), "an upload in progress");
		const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
		await utimes(join(tmp, "stale"), twoDaysAgo, twoDaysAgo);
		const store = await openBlobStore({ dir });
		expect(store.kind).toBe("local");
		expect(await readdir(tmp)).toEqual(["recent"]);
	});
});
