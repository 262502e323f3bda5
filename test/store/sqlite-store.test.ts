import { randomUUID } from "node:crypto";
import { readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Collection, Doc } from "../../shared/store/document-store.js";
import { DATABASE_FILE, SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { openDocumentStore } from "../../shared/store/open-store.js";
import { describeDocumentStoreContract } from "./document-store.contract.js";

const root = path.join(tmpdir(), `memos-sqlite-${randomUUID()}`);
const contractDir = path.join(root, "contract");

afterAll(async () => {
	await rm(root, { recursive: true, force: true });
});

describeDocumentStoreContract("sqlite in memory", async () => new SqliteDocumentStore({ dir: null }), { persistent: false });

describeDocumentStoreContract("sqlite file", async () => new SqliteDocumentStore({ dir: contractDir }), { persistent: true });

describe("sqlite store", () => {
	test("rejects collection names that could leave the table namespace", async () => {
		const store = new SqliteDocumentStore({ dir: null });
		for (const name of ["", "../users", "a/b", 'a"b', "a.b", "..", "x".repeat(65)]) {
			expect(() => store.collection(name)).toThrow(/invalid collection name/);
		}
		expect(store.collection("memo_relations-2").name).toBe("memo_relations-2");
		await store.close();
	});

	test("hands out one collection object per name", async () => {
		const store = new SqliteDocumentStore({ dir: null });
		expect(store.collection("memos")).toBe(store.collection("memos"));
		await store.close();
	});

	test("keeps every collection in <dir>/documents.sqlite and reports its size", async () => {
		const dir = path.join(root, "files", "nested");
		const store = await openDocumentStore({ dir });
		try {
			expect(store.driver).toBe("nedb");
			await store.collection("memos").insert({ _id: "m1", content: "hello" });
			await store.collection("users").insert({ _id: "u1", name: "ada" });
			expect((await readdir(dir)).filter(file => !file.endsWith("-wal") && !file.endsWith("-shm"))).toEqual(["documents.sqlite"]);
			expect(await store.sizeBytes()).toBeGreaterThan(0);
		} finally {
			await store.close();
		}
	});

	test("in memory it writes no file and cannot measure its size", async () => {
		const store = await openDocumentStore({ dir: null });
		try {
			await store.collection("memos").insert({ _id: "m1" });
			await expect(store.sizeBytes()).resolves.toBe(-1);
		} finally {
			await store.close();
		}
	});

	test("fails to open where the directory cannot be created", async () => {
		expect(() => new SqliteDocumentStore({ dir: "/dev/null/db" })).toThrow();
		await expect(openDocumentStore({ dir: "/dev/null/db" })).rejects.toThrow();
	});

	test("refuses operators outside the port's list rather than guess their meaning", async () => {
		const store = new SqliteDocumentStore({ dir: null });
		const memos = store.collection("memos");
		await expect(memos.find({ $not: { a: 1 } })).rejects.toThrow(/unsupported query operator/);
		await expect(memos.find({ a: { $all: [1] } })).rejects.toThrow(/unsupported query operator/);
		await expect(memos.update({}, { $rename: { a: "b" } } as never)).rejects.toThrow(/unsupported update operator/);
		await store.close();
	});

	test("refuses field names that would read as operators or paths", async () => {
		const store = new SqliteDocumentStore({ dir: null });
		const memos = store.collection("memos");
		await expect(memos.insert({ _id: "m1", $where: "x" })).rejects.toThrow(/cannot begin with "\$"/);
		await expect(memos.insert({ _id: "m2", meta: { "a.b": 1 } })).rejects.toThrow(/cannot contain "."/);
		await expect(memos.count({})).resolves.toBe(0);
		await store.close();
	});

	test("runs the regular expressions the filter compilers build and refuses ones that could backtrack", async () => {
		const store = new SqliteDocumentStore({ dir: null });
		const memos = store.collection("memos");
		await memos.insert({ _id: "m1", content: "Hello World", tags: ["work/project", "home"] });
		// Shapes of shared/cel/text-match.ts and the tag assertions of memo-filter-compile.ts.
		await expect(memos.count({ content: { $regex: /^[hH][eE]llo/u } })).resolves.toBe(1);
		await expect(memos.count({ content: { $regex: /[wW]orld(?![\s\S])/u } })).resolves.toBe(1);
		await expect(memos.count({ tags: { $regex: /^(?=[\s\S]*?proj)(?!home)/u } })).resolves.toBe(1);
		await expect(memos.count({ tags: { $regex: /^(?=(?:home|away)(?![\s\S]))/u } })).resolves.toBe(1);
		for (const hostile of [/(a+)+$/, /^(a|a)*b/, /(x*)*y/, /a{1,1000}/, /(a)\1/, /[\s\S]*?x/, /^a/g]) {
			await expect(memos.find({ content: { $regex: hostile } })).rejects.toThrow(/not supported by the document store/);
		}
		await store.close();
	});

	test("a write that fails part-way leaves every document as it was", async () => {
		const store = new SqliteDocumentStore({ dir: null });
		const users = store.collection("users");
		await users.ensureIndex({ fields: { email: 1 }, unique: true });
		await users.insert({ _id: "u1", email: "a@example.com", n: 1 });
		await users.insert({ _id: "u2", email: "b@example.com", n: 1 });
		await expect(users.update({}, { $set: { email: "same@example.com" }, $inc: { n: 1 } }, { multi: true })).rejects.toThrow(/duplicate key/);
		await expect(users.find({}, { sort: { _id: 1 } })).resolves.toEqual([
			{ _id: "u1", email: "a@example.com", n: 1 },
			{ _id: "u2", email: "b@example.com", n: 1 }
		]);
		await store.close();
	});

	test("the writes of one turn commit together, a failed one alone undone, and each answers once another connection sees it", async () => {
		const dir = path.join(root, "group-commit");
		const store = new SqliteDocumentStore({ dir });
		const other = new SqliteDocumentStore({ dir });
		try {
			const memos = store.collection("memos");
			await memos.insert({ _id: "m0", n: 0 });
			const seenByOther = () => other.collection("memos").find({}, { sort: { _id: 1 } });
			const writes: Promise<unknown>[] = [
				memos.insert({ _id: "m1", n: 1 }),
				memos.insert({ _id: "m1", n: 2 }),
				memos.insert({ _id: "m2", n: 1 }),
				memos.update({ _id: "m2" }, { $inc: { n: 1 } })
			];
			const answers = await Promise.allSettled(writes.map(async write => (await write, await seenByOther())));
			const all = [
				{ _id: "m0", n: 0 },
				{ _id: "m1", n: 1 },
				{ _id: "m2", n: 2 }
			];
			expect(answers).toEqual([
				{ status: "fulfilled", value: all },
				{ status: "rejected", reason: expect.objectContaining({ name: "DuplicateKeyError" }) },
				{ status: "fulfilled", value: all },
				{ status: "fulfilled", value: all }
			]);
		} finally {
			await other.close();
			await store.close();
		}
	});

	test("a database that refuses writes answers StorageError EROFS and fails ping until writes work; reads go on", async () => {
		const store = new SqliteDocumentStore({ dir: path.join(root, "read-only") });
		try {
			const memos = store.collection("memos");
			await memos.insert({ _id: "m1" });
			await expect(store.ping()).resolves.toBeUndefined();
			store.exec("PRAGMA query_only = 1");
			await expect(memos.insert({ _id: "m2" })).rejects.toMatchObject({ name: "StorageError", code: "EROFS" });
			await expect(memos.find({})).resolves.toEqual([{ _id: "m1" }]);
			await expect(store.ping()).rejects.toMatchObject({ name: "StorageError", code: "EROFS" });
			store.exec("PRAGMA query_only = 0");
			await expect(store.ping()).resolves.toBeUndefined();
			await memos.insert({ _id: "m2" });
			await expect(memos.count({})).resolves.toBe(2);
		} finally {
			await store.close();
		}
	});

	test("the identity is written when the file is created and kept; another file has another", async () => {
		const dir = path.join(root, "identity");
		const created = new SqliteDocumentStore({ dir });
		const identity = created.identity;
		await created.close();
		const reopened = new SqliteDocumentStore({ dir });
		const other = new SqliteDocumentStore({ dir: path.join(root, "identity-other") });
		try {
			expect(reopened.identity).toBe(identity);
			expect(other.identity).not.toBe(identity);
		} finally {
			await reopened.close();
			await other.close();
		}
	});

	test("a damaged database file fails to open with StorageError EIO", async () => {
		const dir = path.join(root, "damaged");
		const store = new SqliteDocumentStore({ dir });
		await store.collection("memos").insert({ _id: "m1" });
		await store.close();
		await writeFile(path.join(dir, DATABASE_FILE), "this is no longer a database ".repeat(200));
		expect(() => new SqliteDocumentStore({ dir })).toThrow(expect.objectContaining({ name: "StorageError", code: "EIO" }));
	});

	test("two connections on one file see each other's writes, including fields that became arrays", async () => {
		await withTwoConnections("shared", "memos", async (mine, theirs) => {
			await mine.insert({ _id: "m1", tags: "solo" });
			await expect(theirs.count({ tags: "solo" })).resolves.toBe(1);
			await mine.insert({ _id: "m2", tags: ["a", "b"] });
			await expect(theirs.find({ tags: "b" })).resolves.toEqual([{ _id: "m2", tags: ["a", "b"] }]);
			await theirs.update({ _id: "m1" }, { $set: { tags: ["x"] } });
			await expect(mine.findOne({ tags: "x" })).resolves.toEqual({ _id: "m1", tags: ["x"] });
		});
	});

	test("a read asked again sees what changed its translation since: a field that became an array, a Date beside its ISO string", async () => {
		await withTwoConnections("translations", "things", async (mine, theirs) => {
			await mine.insert({ _id: "a", tags: "x" });
			for (const tag of ["x", "y", "z"]) await expect(mine.find({ tags: tag }, { sort: { _id: 1 } })).resolves.toEqual(tag === "x" ? [{ _id: "a", tags: "x" }] : []);
			await mine.insert({ _id: "b", tags: ["y"] });
			await expect(mine.find({ tags: "y" }, { sort: { _id: 1 } })).resolves.toEqual([{ _id: "b", tags: ["y"] }]);
			await theirs.insert({ _id: "c", tags: ["z"], at: new Date(0) });
			await theirs.insert({ _id: "d", at: new Date(0).toISOString() });
			await expect(mine.find({ tags: "z" }, { sort: { _id: 1 } })).resolves.toEqual([{ _id: "c", tags: ["z"], at: new Date(0) }]);
			for (let round = 0; round < 2; round++) {
				await expect(mine.find({ at: new Date(0) })).resolves.toEqual([{ _id: "c", tags: ["z"], at: new Date(0) }]);
				await expect(mine.find({ at: new Date(0).toISOString() })).resolves.toEqual([{ _id: "d", at: new Date(0).toISOString() }]);
			}
		});
	});
});

/** `work` on collection `name` through two connections to one file under `dir`, closed afterwards. */
async function withTwoConnections(dir: string, name: string, work: (mine: Collection<Doc>, theirs: Collection<Doc>) => Promise<void>): Promise<void> {
	const first = new SqliteDocumentStore({ dir: path.join(root, dir) });
	const second = new SqliteDocumentStore({ dir: path.join(root, dir) });
	try {
		await work(first.collection(name), second.collection(name));
	} finally {
		await first.close();
		await second.close();
	}
}

describe("sqlite store change token", () => {
	test("holds while nothing is written and moves at every write of any collection", async () => {
		const store = new SqliteDocumentStore({ dir: null });
		try {
			const memos = store.collection("memos");
			await memos.insert({ _id: "m1", n: 1 });
			const token = store.changeToken();
			await memos.find({});
			await store.collection("users").count({});
			expect(store.changeToken()).toBe(token);
			await store.collection("users").insert({ _id: "u1" });
			const afterInsert = store.changeToken();
			expect(afterInsert).not.toBe(token);
			await memos.update({ _id: "m1" }, { $inc: { n: 1 } });
			expect(store.changeToken()).not.toBe(afterInsert);
		} finally {
			await store.close();
		}
	});

	test("moves as soon as a write is made, before its commit; a write that changes no row leaves it", async () => {
		const store = new SqliteDocumentStore({ dir: null });
		try {
			const memos = store.collection("memos");
			await memos.insert({ _id: "m0" });
			const before = store.changeToken();
			const written = memos.insert({ _id: "m1" });
			const pending = store.changeToken();
			expect(pending).not.toBe(before);
			await written;
			await memos.remove({ _id: "none" }, { multi: true });
			await memos.update({ _id: "none" }, { $set: { a: 1 } });
			expect(store.changeToken()).toBe(pending);
		} finally {
			await store.close();
		}
	});

	test("moves when another connection to the same file commits", async () => {
		const dir = path.join(root, "change-token");
		const first = new SqliteDocumentStore({ dir });
		const second = new SqliteDocumentStore({ dir });
		try {
			await first.collection("memos").insert({ _id: "m1" });
			const token = first.changeToken();
			expect(first.changeToken()).toBe(token);
			await second.collection("memos").update({ _id: "m1" }, { $set: { content: "changed elsewhere" } });
			expect(first.changeToken()).not.toBe(token);
		} finally {
			await second.close();
			await first.close();
		}
	});
});
