import { createHash, randomBytes, randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import type { BlobStore } from "../../shared/blob/blob-store.js";
import { BlobNotFoundError } from "../../shared/blob/blob-store.js";

export interface BlobStoreFixture {
	store: BlobStore;
	teardown(): Promise<void>;
	/** Scratch files the adapter keeps besides objects (local files: `.tmp`); failed puts must leave none. */
	strayTemporaries?(): Promise<string[]>;
}

const MiB = 1024 * 1024;
const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

export function sha256(bytes: Uint8Array): string {
	return createHash("sha256").update(bytes).digest("hex");
}

/** Streams `data` in chunks of `chunkSize` bytes, as a socket or a multipart parser would. */
export function chunked(data: Buffer, chunkSize = 64 * 1024 + 7): Readable {
	const chunks: Buffer[] = [];
	for (let offset = 0; offset < data.length; offset += chunkSize) chunks.push(data.subarray(offset, offset + chunkSize));
	return Readable.from(chunks);
}

/** Streams the first `failAt` bytes of `data`, then fails like a dropped client connection. */
export function failingAfter(data: Buffer, failAt: number): Readable {
	return Readable.from(
		(async function* () {
			yield* chunked(data.subarray(0, failAt));
			throw new Error("source failed halfway");
		})()
	);
}

export async function readAll(stream: Readable): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
	return Buffer.concat(chunks);
}

/**
 * The behaviour every BlobStore adapter must show. Keys live under a random prefix and are
 * deleted afterwards, so the suite can run against a shared bucket.
 */
export function describeBlobStoreContract(name: string, setup: () => Promise<BlobStoreFixture>): void {
	describe(`blob store contract: ${name}`, () => {
		let fixture: BlobStoreFixture | undefined;
		const prefix = `contract-${randomUUID()}`;
		const used = new Set<string>();
		const key = (name: string): string => {
			const full = `${prefix}/${name}`;
			used.add(full);
			return full;
		};
		const store = (): BlobStore => {
			if (!fixture) throw new Error("blob store fixture not set up");
			return fixture.store;
		};
		const expectNoStrayTemporaries = async (): Promise<void> => {
			if (fixture?.strayTemporaries) expect(await fixture.strayTemporaries()).toEqual([]);
		};

		beforeAll(async () => {
			fixture = await setup();
		});

		afterAll(async () => {
			if (!fixture) return;
			try {
				for (const k of used) await fixture.store.delete(k);
				await fixture.store.close();
			} finally {
				await fixture.teardown();
			}
		});

		test("ping answers on a working store", async () => {
			await expect(store().ping()).resolves.toBeUndefined();
		});

		test("a multi-chunk stream round-trips with the right size and SHA-256", async () => {
			const data = randomBytes(6 * MiB + 12_345);
			const k = key("round-trip.bin");
			const info = await store().put(k, chunked(data), { contentType: "application/octet-stream" });
			expect(info).toEqual({ size: data.length, sha256: sha256(data) });
			const back = await readAll(await store().get(k));
			expect(back.length).toBe(data.length);
			expect(sha256(back)).toBe(sha256(data));
		});

		test("a declared size that matches is accepted", async () => {
			const data = randomBytes(4096);
			const info = await store().put(key("declared.bin"), chunked(data, 1000), { size: data.length });
			expect(info).toEqual({ size: data.length, sha256: sha256(data) });
		});

		test.each([
			["shorter", 1],
			["longer", -1]
		])("a body %s than its declared size is refused and leaves nothing", async (_how, delta) => {
			const data = randomBytes(100 * 1024);
			const k = key(`size-mismatch-${delta}.bin`);
			await expect(store().put(k, chunked(data), { size: data.length + delta })).rejects.toThrow();
			expect(await store().stat(k)).toBeNull();
			await expectNoStrayTemporaries();
		});

		test("a running hash carried across puts gives the hash of all their bytes; each answer is its digest so far", async () => {
			const first = randomBytes(70_000);
			const second = randomBytes(5000);
			const hash = createHash("sha256");
			expect(await store().put(key("carried-1.bin"), chunked(first), { hash, durable: false })).toEqual({ size: first.length, sha256: sha256(first) });
			expect(await store().put(key("carried-2.bin"), chunked(second), { hash })).toEqual({ size: second.length, sha256: sha256(Buffer.concat([first, second])) });
		});

		test.each([1, 3])("compose makes one object of %i parts, in order", async count => {
			const datas = Array.from({ length: count }, (_, i) => randomBytes(100_000 + i * 7));
			const parts = datas.map((_, i) => key(`compose-${count}-part-${i}`));
			for (const [i, data] of datas.entries()) await store().put(parts[i] as string, chunked(data), { durable: false });
			const k = key(`compose-${count}.bin`);
			await store().compose(parts, k);
			expect((await readAll(await store().get(k))).equals(Buffer.concat(datas))).toBe(true);
			for (const part of parts) await store().delete(part);
			await expectNoStrayTemporaries();
		});

		test("compose of a missing part fails with BlobNotFoundError and makes nothing", async () => {
			const part = key("compose-present");
			await store().put(part, chunked(randomBytes(10)));
			const k = key("compose-missing.bin");
			await expect(store().compose([part, key("compose-absent")], k)).rejects.toBeInstanceOf(BlobNotFoundError);
			await expect(store().compose([key("compose-absent")], k)).rejects.toBeInstanceOf(BlobNotFoundError);
			expect(await store().stat(k)).toBeNull();
			await expectNoStrayTemporaries();
		});

		test("a zero-byte blob", async () => {
			const k = key("empty.bin");
			expect(await store().put(k, Readable.from([]))).toEqual({ size: 0, sha256: EMPTY_SHA256 });
			expect((await store().stat(k))?.size).toBe(0);
			expect((await readAll(await store().get(k))).length).toBe(0);
			await expect(store().get(k, { start: 0, end: 0 })).rejects.toBeInstanceOf(RangeError);
		});

		describe("byte ranges", () => {
			const data = randomBytes(1000);
			const k = key("ranges.bin");

			beforeAll(async () => {
				await store().put(k, chunked(data, 300));
			});

			test.each([
				["first byte", 0, 0],
				["middle", 100, 199],
				["last byte", 999, 999],
				["whole object", 0, 999]
			])("%s (%i-%i)", async (_label, start, end) => {
				const back = await readAll(await store().get(k, { start, end }));
				expect(back.equals(data.subarray(start, end + 1))).toBe(true);
			});

			test.each([
				["starting at the end", 1000, 1000],
				["running past the end", 990, 1000],
				["reversed", 5, 4],
				["negative", -1, 3]
			])("a range %s is a RangeError", async (_label, start, end) => {
				await expect(store().get(k, { start, end })).rejects.toBeInstanceOf(RangeError);
			});
		});

		test("stat is null before a put and gives size and modification time after", async () => {
			const k = key("stat.bin");
			expect(await store().stat(k)).toBeNull();
			await store().put(k, chunked(randomBytes(2500), 1000));
			const info = await store().stat(k);
			expect(info?.size).toBe(2500);
			// toBeInstanceOf(Date) fails across jest's module realm; any valid date will do.
			expect(Number.isFinite(info?.lastModified.getTime())).toBe(true);
		});

		test("get of a missing key is BlobNotFoundError, with or without a range", async () => {
			const k = key("never-written.bin");
			const whole = store().get(k);
			await expect(whole).rejects.toBeInstanceOf(BlobNotFoundError);
			await expect(whole).rejects.toMatchObject({ key: k });
			await expect(store().get(k, { start: 0, end: 0 })).rejects.toBeInstanceOf(BlobNotFoundError);
		});

		test("delete removes the object, and deleting a missing object is fine", async () => {
			const k = key("deleted.bin");
			await store().put(k, chunked(randomBytes(10)));
			await store().delete(k);
			expect(await store().stat(k)).toBeNull();
			await expect(store().get(k)).rejects.toBeInstanceOf(BlobNotFoundError);
			await expect(store().delete(k)).resolves.toBeUndefined();
			await expect(store().delete(key("never-existed.bin"))).resolves.toBeUndefined();
		});

		test("list gives every object under a folder, nested ones included, with its modification time; an empty folder none", async () => {
			const keys = [key("listed/a/0"), key("listed/a/1"), key("listed/b.bin")];
			for (const k of keys) await store().put(k, chunked(randomBytes(10)));
			await store().put(key("listed-not/c.bin"), chunked(randomBytes(10)));
			const listed = await store().list(`${prefix}/listed/`);
			expect(listed.map(item => item.key).sort()).toEqual([...keys].sort());
			for (const item of listed) expect(Number.isFinite(item.lastModified.getTime())).toBe(true);
			expect(await store().list(`${prefix}/nothing-here/`)).toEqual([]);
			await expect(store().list(`${prefix}/no-slash`)).rejects.toThrow("invalid blob folder");
		});

		test("deleteFolder removes every object under the folder, nested ones included, and nothing beside it; a missing folder is fine", async () => {
			const keys = [key("gone/a/0"), key("gone/a/1"), key("gone/b.bin")];
			for (const k of keys) await store().put(k, chunked(randomBytes(10)));
			await store().put(key("gone-not/c.bin"), chunked(randomBytes(10)));
			await store().deleteFolder(`${prefix}/gone/`);
			expect(await store().list(`${prefix}/gone/`)).toEqual([]);
			for (const k of keys) expect(await store().stat(k)).toBeNull();
			expect(await store().stat(key("gone-not/c.bin"))).not.toBeNull();
			await store().deleteFolder(`${prefix}/gone/`);
			await expect(store().deleteFolder(`${prefix}/no-slash`)).rejects.toThrow("invalid blob folder");
		});

		test("a source stream that fails halfway rejects the put and leaves no object", async () => {
			const data = randomBytes(2 * MiB);
			const k = key("failed.bin");
			await expect(store().put(k, failingAfter(data, MiB))).rejects.toThrow("source failed halfway");
			expect(await store().stat(k)).toBeNull();
			await expect(store().get(k)).rejects.toBeInstanceOf(BlobNotFoundError);
			await expectNoStrayTemporaries();
		});

		test("a failed overwrite keeps the previous bytes", async () => {
			const before = randomBytes(3000);
			const k = key("kept.bin");
			await store().put(k, chunked(before));
			await expect(store().put(k, failingAfter(randomBytes(MiB), MiB / 2))).rejects.toThrow("source failed halfway");
			expect((await readAll(await store().get(k))).equals(before)).toBe(true);
			await expectNoStrayTemporaries();
		});

		test("overwriting a key replaces the bytes", async () => {
			const k = key("overwritten.bin");
			await store().put(k, chunked(randomBytes(3000)));
			const after = randomBytes(10);
			expect(await store().put(k, chunked(after))).toEqual({ size: 10, sha256: sha256(after) });
			expect((await store().stat(k))?.size).toBe(10);
			expect((await readAll(await store().get(k))).equals(after)).toBe(true);
		});

		test.each(["../x", "/abs", "", "a/../b", "a//b", "a/", ".hidden"])("the invalid key %j is refused", async (bad) => {
			await expect(store().put(bad, chunked(Buffer.from("x")))).rejects.toThrow(/invalid blob key/);
			await expect(store().get(bad)).rejects.toThrow(/invalid blob key/);
			await expect(store().stat(bad)).rejects.toThrow(/invalid blob key/);
			await expect(store().delete(bad)).rejects.toThrow(/invalid blob key/);
		});

		test("concurrent puts to different keys keep their own bytes", async () => {
			const blobs = Array.from({ length: 8 }, (_, i) => ({ k: key(`concurrent-${i}.bin`), data: randomBytes(300 * 1024 + i) }));
			const infos = await Promise.all(blobs.map(({ k, data }) => store().put(k, chunked(data, 16 * 1024))));
			expect(infos).toEqual(blobs.map(({ data }) => ({ size: data.length, sha256: sha256(data) })));
			for (const { k, data } of blobs) {
				expect(sha256(await readAll(await store().get(k)))).toBe(sha256(data));
			}
		});
	});
}
