import { randomUUID } from "node:crypto";
import { readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { NedbDocumentStore } from "../../shared/store/nedb-store.js";
import { openDocumentStore } from "../../shared/store/open-store.js";
import { describeDocumentStoreContract } from "./document-store.contract.js";

const root = path.join(tmpdir(), `memos-nedb-${randomUUID()}`);
const contractDir = path.join(root, "contract");

afterAll(async () => {
	await rm(root, { recursive: true, force: true });
});

describeDocumentStoreContract("nedb in memory", async () => new NedbDocumentStore({ dir: null }), { persistent: false });

describeDocumentStoreContract("nedb files", async () => new NedbDocumentStore({ dir: contractDir }), { persistent: true });

describe("nedb store", () => {
	test("rejects collection names that could leave the directory", async () => {
		const store = new NedbDocumentStore({ dir: path.join(root, "names") });
		for (const name of ["", "../users", "a/b", "a\\b", "a.b", "..", "x".repeat(65)]) {
			expect(() => store.collection(name)).toThrow(/invalid collection name/);
		}
		expect(store.collection("memo_relations-2").name).toBe("memo_relations-2");
		await store.close();
	});

	test("hands out one collection object per name, so one datastore per file", () => {
		const store = new NedbDocumentStore({ dir: null });
		expect(store.collection("memos")).toBe(store.collection("memos"));
	});

	test("keeps each collection in <dir>/<collection>.db and reports their size", async () => {
		const dir = path.join(root, "files", "nested");
		const store = await openDocumentStore({ dir });
		try {
			expect(store.driver).toBe("nedb");
			await store.collection("memos").insert({ _id: "m1", content: "hello" });
			await store.collection("users").insert({ _id: "u1", name: "ada" });
			expect((await readdir(dir)).sort()).toEqual(["memos.db", "users.db"]);
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
		const store = new NedbDocumentStore({ dir: "/dev/null/db" });
		await expect(store.ping()).rejects.toThrow();
		await expect(store.sizeBytes()).resolves.toBe(-1);
		await store.close();
	});

	test("refuses operators outside the port's list rather than guess their meaning", async () => {
		const store = new NedbDocumentStore({ dir: null });
		const memos = store.collection("memos");
		await expect(memos.find({ $not: { a: 1 } })).rejects.toThrow(/unsupported query operator/);
		await expect(memos.find({ a: { $all: [1] } })).rejects.toThrow(/unsupported query operator/);
		await store.close();
	});
});
