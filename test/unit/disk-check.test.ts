import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { probeWritable } from "../../shared/runtime/disk-check.js";

describe("the readiness check of the data directory", () => {
	let dir: string;
	beforeAll(async () => {
		dir = await mkdtemp(path.join(os.tmpdir(), "memos-disk-"));
	});
	afterAll(async () => {
		await rm(dir, { recursive: true, force: true });
	});

	test("a directory that takes a write passes, and keeps no probe file", async () => {
		await expect(probeWritable(dir)).resolves.toBeUndefined();
		expect(await readdir(dir)).toEqual([]);
	});

	test("a directory that takes no write fails the check", async () => {
		const notADirectory = path.join(dir, "file");
		await writeFile(notADirectory, "");
		await expect(probeWritable(notADirectory)).rejects.toMatchObject({ code: "ENOTDIR" });
	});
});
