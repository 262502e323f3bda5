import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBlobStore } from "../../shared/blob/local-blob-store.js";
import { openBlobStore } from "../../shared/blob/open-blob-store.js";
import { BlobNotFoundError } from "../../shared/blob/blob-store.js";
import { chunked, describeBlobStoreContract, failingAfter } from "./blob-store.contract.js";

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

	test("deleteFolder leaves no directory of the folder behind", async () => {
		const store = new LocalBlobStore({ dir });
		await store.put("uploads/s1/0", chunked(Buffer.from("a")));
		await store.delete("uploads/s1/0");
		expect(await readdir(join(dir, "uploads"))).toEqual(["s1"]);
		await store.deleteFolder("uploads/s1/");
		expect(await readdir(join(dir, "uploads"))).toEqual([]);
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

	test("appends make one object of an upload's chunks, hashed as one, which compose of that one object renames", async () => {
		const store = new LocalBlobStore({ dir });
		const data = randomBytes(2 * 1024 * 1024 + 3);
		const hash = createHash("sha256");
		let offset = 0;
		for (const size of [1024 * 1024 + 1, 5, 1024 * 1024 - 3]) {
			const info = await store.append("uploads/u1/0", chunked(data.subarray(offset, offset + size)), { offset, size, hash });
			offset += size;
			expect(info).toEqual({ size, sha256: createHash("sha256").update(data.subarray(0, offset)).digest("hex") });
		}
		expect((await readFile(join(dir, "uploads/u1/0"))).equals(data)).toBe(true);
		await store.compose(["uploads/u1/0"], "attachments/a.bin");
		expect((await readFile(join(dir, "attachments/a.bin"))).equals(data)).toBe(true);
		expect(await readdir(join(dir, "uploads/u1"))).toEqual([]);
	});

	test("a failed append (the body breaks, or is longer than declared) leaves the object as long as its offset; offset 0 starts afresh", async () => {
		const store = new LocalBlobStore({ dir });
		const data = randomBytes(300_000);
		await store.append("staged", chunked(data.subarray(0, 1000)), { offset: 0 });
		await expect(store.append("staged", failingAfter(data.subarray(1000), 200_000), { offset: 1000 })).rejects.toThrow("source failed halfway");
		expect((await readFile(join(dir, "staged"))).equals(data.subarray(0, 1000))).toBe(true);
		await expect(store.append("staged", chunked(data.subarray(1000)), { offset: 1000, size: 10 })).rejects.toThrow(/expected 10 bytes/);
		expect((await readFile(join(dir, "staged"))).equals(data.subarray(0, 1000))).toBe(true);
		await store.append("staged", chunked(data.subarray(1000)), { offset: 1000 });
		expect((await readFile(join(dir, "staged"))).equals(data)).toBe(true);
		await store.append("staged", chunked(Buffer.from("new")), { offset: 0 });
		expect(await readFile(join(dir, "staged"), "utf8")).toBe("new");
	});

	test("an append inside the object (bytes a crash left past the offset) replaces everything from its offset", async () => {
		const store = new LocalBlobStore({ dir });
		await store.append("staged", chunked(Buffer.from("abcdefgh")), { offset: 0 });
		await store.append("staged", chunked(Buffer.from("XY")), { offset: 3 });
		expect(await readFile(join(dir, "staged"), "utf8")).toBe("abcXY");
	});

	test("an append past the object's end, or to a missing object but at 0, is refused and writes nothing", async () => {
		const store = new LocalBlobStore({ dir });
		await expect(store.append("missing", chunked(Buffer.from("x")), { offset: 5 })).rejects.toBeInstanceOf(BlobNotFoundError);
		await store.append("short", chunked(Buffer.from("abc")), { offset: 0 });
		await expect(store.append("short", chunked(Buffer.from("x")), { offset: 4 })).rejects.toBeInstanceOf(RangeError);
		expect(await readFile(join(dir, "short"), "utf8")).toBe("abc");
		expect(await readdir(dir)).toEqual(["short"]);
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
