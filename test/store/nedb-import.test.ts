import { randomUUID } from "node:crypto";
import { cp, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DuplicateKeyError } from "../../shared/store/document-store.js";
import { describeImport, type NedbImport } from "../../shared/store/nedb-import.js";
import { openDocumentStore } from "../../shared/store/open-store.js";

const root = path.join(tmpdir(), `memos-nedb-import-${randomUUID()}`);

afterAll(async () => {
	await rm(root, { recursive: true, force: true });
});

/** Lines as NeDB wrote them: appended records, later ones replacing earlier ones, deletions, index declarations. */
const USERS = [
	{ _id: "u1", username: "ada", createTime: 1000, joined: { $$date: Date.parse("2024-05-01T10:00:00.000Z") } },
	{ _id: "u2", username: "bob", createTime: 2000 },
	{ $$indexCreated: { fieldName: "username", unique: true, sparse: false } },
	{ _id: "u2", username: "bobby", createTime: 2000, tags: ["x"] },
	{ _id: "u3", username: "cy", createTime: 3000 },
	{ $$deleted: true, _id: "u3" },
	{ $$indexCreated: { fieldName: "createTime,role", unique: false, sparse: false } },
	{ $$indexCreated: { fieldName: "gone", unique: false, sparse: false } },
	{ $$indexRemoved: "gone" }
]
	.map(record => JSON.stringify(record))
	.join("\n");

const MEMOS = [{ _id: "m1", content: "hello", creatorId: "u1" }, { _id: "m2", content: "world", creatorId: "u2" }].map(record => JSON.stringify(record)).join("\n");

async function nedbDir(name: string, files: Record<string, string>): Promise<string> {
	const dir = path.join(root, name);
	await mkdir(dir, { recursive: true });
	for (const [file, text] of Object.entries(files)) await writeFile(path.join(dir, file), text);
	return dir;
}

describe("import of NeDB files from earlier versions", () => {
	test("imports the last state of every document with its dates and indexes, once, and moves the files aside", async () => {
		const dir = await nedbDir("full", { "users.db": `${USERS}\n`, "memos.db": MEMOS, "memos.db~": MEMOS });
		const imports: NedbImport[] = [];
		const store = await openDocumentStore({ dir, onImport: imported => imports.push(imported) });
		try {
			expect(imports).toHaveLength(1);
			expect(imports[0]).toMatchObject({ imported: true, collections: 2, documents: 4, skippedLines: 0 });
			const users = store.collection("users");
			await expect(users.find({}, { sort: { _id: 1 } })).resolves.toEqual([
				{ _id: "u1", username: "ada", createTime: 1000, joined: new Date("2024-05-01T10:00:00.000Z") },
				{ _id: "u2", username: "bobby", createTime: 2000, tags: ["x"] }
			]);
			await expect(users.count({ tags: "x" })).resolves.toBe(1);
			await expect(users.insert({ _id: "u9", username: "ada" })).rejects.toBeInstanceOf(DuplicateKeyError);
			await expect(store.collection("memos").count({})).resolves.toBe(2);

			const entries = await readdir(dir);
			expect(entries.filter(file => file.endsWith(".db") || file.endsWith(".db~"))).toEqual([]);
			const movedTo = path.basename(imports[0].movedTo);
			expect(movedTo).toMatch(/^nedb-imported-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z$/);
			expect((await readdir(imports[0].movedTo)).sort()).toEqual(["memos.db", "memos.db~", "users.db"]);
			expect(describeImport(imports[0])).toBe(`Imported 4 documents of 2 collections from NeDB files into SQLite; the NeDB files are kept in ${imports[0].movedTo}`);
		} finally {
			await store.close();
		}

		const again = await openDocumentStore({ dir, onImport: imported => imports.push(imported) });
		try {
			expect(imports).toHaveLength(1);
			await expect(again.collection("users").count({})).resolves.toBe(2);
		} finally {
			await again.close();
		}
	});

	test("files put back after an import (a crash before the move) are moved aside, not imported twice", async () => {
		const dir = await nedbDir("twice", { "memos.db": MEMOS });
		const imports: NedbImport[] = [];
		const first = await openDocumentStore({ dir, onImport: imported => imports.push(imported) });
		await first.collection("memos").remove({ _id: "m1" });
		await first.close();
		await cp(path.join(imports[0].movedTo, "memos.db"), path.join(dir, "memos.db"));
		const second = await openDocumentStore({ dir, onImport: imported => imports.push(imported) });
		try {
			await expect(second.collection("memos").find({})).resolves.toEqual([{ _id: "m2", content: "world", creatorId: "u2" }]);
			expect(imports.map(entry => entry.imported)).toEqual([true, false]);
			expect(describeImport(imports[1])).toMatch(/^NeDB files imported earlier were still in the data directory/);
			expect((await readdir(dir)).filter(file => file.endsWith(".db"))).toEqual([]);
		} finally {
			await second.close();
		}
	});

	test("a damaged line (a partial write) is skipped and counted", async () => {
		const lines = Array.from({ length: 20 }, (_, i) => JSON.stringify({ _id: `m${i}`, n: i }));
		lines[7] = lines[7].slice(0, 10) + lines[8];
		const dir = await nedbDir("damaged", { "memos.db": lines.join("\n") });
		const imports: NedbImport[] = [];
		const store = await openDocumentStore({ dir, onImport: imported => imports.push(imported) });
		try {
			expect(imports[0]).toMatchObject({ documents: 19, skippedLines: 1 });
			expect(describeImport(imports[0])).toContain("1 damaged lines skipped");
			await expect(store.collection("memos").count({})).resolves.toBe(19);
		} finally {
			await store.close();
		}
	});

	test("a file with more than 10 % damaged lines is refused and left where it is, with nothing imported", async () => {
		const dir = await nedbDir("refused", { "good.db": MEMOS, "memos.db": `${JSON.stringify({ _id: "m1" })}\nnot json\n{"_id":` });
		await expect(openDocumentStore({ dir })).rejects.toThrow(/memos\.db: 2 of 3 lines are not NeDB records/);
		expect((await readdir(dir)).filter(file => file.endsWith(".db")).sort()).toEqual(["good.db", "memos.db"]);
		await rm(path.join(dir, "memos.db"));
		const store = await openDocumentStore({ dir });
		try {
			await expect(store.collection("good").count({})).resolves.toBe(2);
		} finally {
			await store.close();
		}
	});

	test("a directory without NeDB files imports nothing", async () => {
		const dir = await nedbDir("empty", {});
		const imports: NedbImport[] = [];
		const store = await openDocumentStore({ dir, onImport: imported => imports.push(imported) });
		await store.close();
		expect(imports).toEqual([]);
		expect((await readdir(dir)).some(file => file.startsWith("nedb-imported-"))).toBe(false);
	});
});
