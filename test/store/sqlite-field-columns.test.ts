import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Collection, Doc, Filter, IndexSpec, Sort, Update } from "../../shared/store/document-store.js";
import { openDocumentStore } from "../../shared/store/open-store.js";
import { DATABASE_FILE, SqliteDocumentStore } from "../../shared/store/sqlite-store.js";

/**
 * The SQLite store keeps a column for each field path an index names and builds the index on
 * it (shared/store/sqlite/field-columns.ts). A column must hold what `json_extract` gives for
 * every kind of value, through inserts and every kind of update, so that a collection with
 * indexes answers every query exactly as one without; and a database whose indexes an earlier
 * version built on expressions is rebuilt on columns once, at open.
 */

const root = path.join(tmpdir(), `memos-sqlite-columns-${randomUUID()}`);

afterAll(async () => {
	await rm(root, { recursive: true, force: true });
});

const VALUES: unknown[] = [
	undefined,
	null,
	true,
	false,
	0,
	1,
	-1,
	1.5,
	1e21,
	2 ** 53 - 1,
	"",
	"text",
	"1",
	"true",
	"[1]",
	'{"a":1}',
	"é💡",
	// Strings JSON spells with escapes (a quote, a backslash, control characters, a lone surrogate, U+2028).
	'a"b\\c',
	"line\nbreak\u0001\u001f",
	"\ud800",
	"\u2028",
	{ a: 1, b: "x" },
	{},
	[1, "a", null],
	[],
	// Followed by the Date of the same time: a change of kind with one JSON.stringify text.
	"2023-11-14T22:13:20.000Z",
	new Date(1_700_000_000_000),
	new Date(1_800_000_000_000)
];

/** Document `i` of round `round`: `v` and `o.p` take values of every kind, `o` itself too. */
function docOf(i: number, round: number): Doc {
	const value = VALUES[(i + round) % VALUES.length];
	const nested = VALUES[(i * 7 + round) % VALUES.length];
	const parents: unknown[] = [{ p: nested }, { p: nested, q: 1 }, undefined, null, "scalar", [{ p: nested }]];
	return { _id: `d${String(i).padStart(3, "0")}`, ...(value === undefined ? {} : { v: value }), ...withField("o", parents[i % parents.length]) };
}

function withField(name: string, value: unknown): Record<string, unknown> {
	return value === undefined ? {} : { [name]: value };
}

const FIELDS = ["v", "o.p"];
const SORTS: Sort[] = [{ v: 1, _id: 1 }, { v: -1, _id: -1 }, { "o.p": 1, v: -1, _id: 1 }];

/** Every kind of condition on each field with each value the operator takes. */
function filters(): Filter[] {
	const out: Filter[] = [{}];
	for (const field of FIELDS) {
		out.push({ [field]: { $exists: true } }, { [field]: { $exists: false } });
		for (const value of VALUES) {
			if (value === undefined) continue;
			out.push({ [field]: value }, { [field]: { $ne: value } }, { [field]: { $in: [value, "text"] } }, { [field]: { $nin: [value, 1] } });
			if (["number", "string", "boolean"].includes(typeof value) || value instanceof Date) {
				for (const op of ["$gt", "$gte", "$lt", "$lte"]) out.push({ [field]: { [op]: value } });
			}
		}
	}
	out.push({ $or: [{ v: 1 }, { "o.p": "text" }] }, { v: { $in: [true, 1, "1"] }, "o.p": { $ne: null } });
	// Array fields' elements, read through JSON columns where the collection keeps them (ensureArrayField).
	out.push({ v: { $in: ['a"b\\c', "\ud800"] } }, { v: { $eq: "line\nbreak\u0001\u001f" } }, { v: { $in: ["a", "[1]"] } }, { "o.p": { $in: ["text", "é💡"] } });
	out.push({ v: { $size: 0 } }, { v: { $size: 3 } }, { o: { $size: 1 } }, { v: { $elemMatch: { $eq: "a" } } }, { o: { $elemMatch: { p: { $exists: true } } } });
	out.push({ "v.0": 1 }, { "v.1": "a" }, { "o.0.p": { $exists: true } }, { v: { $regex: /^t/ } }, { v: { $not: /^t/ } });
	return out;
}

async function ids(collection: Collection, filter: Filter, sort?: Sort): Promise<string[]> {
	return (await collection.find(filter, sort ? { sort } : {})).map(doc => doc._id);
}

/** Rows whose column differs from json_extract of the document (a JSON column: from its `->`), by value or by SQL type. */
function columnMismatches(store: SqliteDocumentStore, table: string, fields: readonly string[] = FIELDS, json = false): unknown[] {
	return fields.flatMap(field => {
		const column = `"${json ? "#" : "@"}${field}"`;
		const expression = json ? `doc -> '$.${field}'` : `json_extract(doc, '$.${field}')`;
		return store.statement(`SELECT _id, ${column} AS c FROM "${table}" WHERE ${column} IS NOT ${expression} OR typeof(${column}) IS NOT typeof(${expression})`).all();
	});
}

/** The fields the collection `kept` keeps as JSON columns: some declared before its documents are written, some after. */
const KEPT_BEFORE = ["v"];
const KEPT_AFTER = ["o", "o.p"];

describe("sqlite field columns", () => {
	test("an indexed collection answers every filter and sort like one without indexes, through inserts and updates of every kind of value", async () => {
		const store = new SqliteDocumentStore({ dir: null });
		try {
			const plain = store.collection("plain");
			const indexed = store.collection("indexed");
			const kept = store.collection("kept");
			await indexed.ensureIndex({ fields: { v: 1 } });
			await indexed.ensureIndex({ fields: { "o.p": 1, v: -1, _id: 1 } });
			for (const field of KEPT_BEFORE) await kept.ensureArrayField(field);
			const count = VALUES.length * 2;
			for (let i = 0; i < count; i++) {
				await plain.insert(docOf(i, 0));
				await indexed.insert(docOf(i, 0));
				await kept.insert(docOf(i, 0));
			}
			for (const field of KEPT_AFTER) await kept.ensureArrayField(field);
			const compare = async (round: string) => {
				expect({ round, mismatches: columnMismatches(store, "c_indexed") }).toEqual({ round, mismatches: [] });
				expect({ round, mismatches: columnMismatches(store, "c_kept", [...KEPT_BEFORE, ...KEPT_AFTER], true) }).toEqual({ round, mismatches: [] });
				for (const filter of filters()) {
					const described = `${round}: ${JSON.stringify(filter)}`;
					const expected = { described, ids: await ids(plain, filter) };
					expect({ described, ids: await ids(indexed, filter) }).toEqual(expected);
					expect({ described, ids: await ids(kept, filter) }).toEqual(expected);
				}
				const projection = { projection: { v: 1, o: 1, "o.p": 1 } as const, sort: { _id: 1 } as const };
				expect({ round, projected: await kept.find({}, projection) }).toEqual({ round, projected: await plain.find({}, projection) });
				for (const sort of SORTS) {
					const described = `${round}: sort ${JSON.stringify(sort)}`;
					const expected = { described, ids: await ids(plain, {}, sort) };
					expect({ described, ids: await ids(indexed, {}, sort) }).toEqual(expected);
					expect({ described, ids: await ids(kept, {}, sort) }).toEqual(expected);
				}
			};
			await compare("inserted");
			for (let round = 1; round <= 3; round++) {
				for (let i = 0; i < count; i++) {
					const next = docOf(i, round);
					const unset: Record<string, true> = {};
					if (next.v === undefined) unset.v = true;
					if (next.o === undefined) unset.o = true;
					const update: Update = { $set: { ...withField("v", next.v), ...withField("o", next.o) }, $unset: unset };
					for (const collection of [plain, indexed, kept]) {
						if (i % 3 === 0) await collection.findOneAndUpdate({ _id: next._id }, update);
						else await collection.update({ _id: next._id }, update);
						// A write that changes no indexed field.
						await collection.update({ _id: next._id }, { $inc: { n: 1 } });
					}
				}
				await compare(`update round ${round}`);
			}
			for (const collection of [plain, indexed, kept]) {
				await collection.update({ _id: "new" }, { $set: { v: "upserted", o: { p: 2 } } }, { upsert: true });
				await collection.update({ v: { $in: [1, 1.5] } }, { $set: { v: 1e21 } }, { multi: true });
				await collection.update({ v: "text" }, { $set: { "o.p": "nested text" } }, { multi: true });
			}
			await compare("after upsert and multi updates");
		} finally {
			await store.close();
		}
	});

	test("the indexes are built on columns, which queries and sorts use", async () => {
		const store = new SqliteDocumentStore({ dir: null });
		try {
			const memos = store.collection("memos");
			await memos.insert({ _id: "m1", creatorId: "u1", createTime: 5, property: { hasLink: true } });
			await memos.ensureIndex({ fields: { creatorId: 1, createTime: -1, _id: -1 } });
			await memos.ensureIndex({ fields: { "property.hasLink": 1 } });
			const indexes = store.statement("SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'c_memos' AND sql IS NOT NULL ORDER BY name").all();
			expect(indexes).toEqual([
				{ sql: 'CREATE INDEX "ix:memos:creatorId,-createTime,-_id" ON "c_memos" ("@creatorId" ASC, "@createTime" DESC, _id DESC)' },
				{ sql: 'CREATE INDEX "ix:memos:property.hasLink" ON "c_memos" ("@property.hasLink" ASC)' }
			]);
			expect(store.explainFind("memos", { creatorId: "u1" }, { sort: { createTime: -1, _id: -1 }, limit: 10 })).toEqual([
				"SEARCH c_memos USING INDEX ix:memos:creatorId,-createTime,-_id (@creatorId=?)"
			]);
			await expect(memos.find({ "property.hasLink": true })).resolves.toEqual([{ _id: "m1", creatorId: "u1", createTime: 5, property: { hasLink: true } }]);
		} finally {
			await store.close();
		}
	});

	test("a column another connection adds is written by this one from its next write", async () => {
		const dir = path.join(root, "shared");
		const first = new SqliteDocumentStore({ dir });
		const second = new SqliteDocumentStore({ dir });
		try {
			await second.collection("memos").insert({ _id: "m1", tag: "a" });
			await first.collection("memos").ensureIndex({ fields: { tag: 1 } });
			await second.collection("memos").insert({ _id: "m2", tag: "b" });
			await second.collection("memos").update({ _id: "m1" }, { $set: { tag: "c" } });
			await expect(first.collection("memos").find({ tag: { $in: ["a", "b", "c"] } }, { sort: { tag: 1 } })).resolves.toEqual([
				{ _id: "m2", tag: "b" },
				{ _id: "m1", tag: "c" }
			]);
			expect(first.statement('SELECT _id, "@tag" AS tag FROM c_memos ORDER BY _id').all()).toEqual([
				{ _id: "m1", tag: "c" },
				{ _id: "m2", tag: "b" }
			]);
		} finally {
			await first.close();
			await second.close();
		}
	});

	test("a JSON column another connection adds is written by this one from its next write, and read by filters", async () => {
		const dir = path.join(root, "shared-json");
		const first = new SqliteDocumentStore({ dir });
		const second = new SqliteDocumentStore({ dir });
		try {
			await second.collection("memos").insert({ _id: "m1", tags: ["a"] });
			await first.collection("memos").ensureArrayField("tags");
			await second.collection("memos").insert({ _id: "m2", tags: ["b", "c"] });
			await second.collection("memos").update({ _id: "m1" }, { $push: { tags: "c" } });
			await expect(second.collection("memos").find({ tags: "c" }, { sort: { _id: 1 } })).resolves.toEqual([
				{ _id: "m1", tags: ["a", "c"] },
				{ _id: "m2", tags: ["b", "c"] }
			]);
			expect(first.statement('SELECT _id, "#tags" AS tags FROM c_memos ORDER BY _id').all()).toEqual([
				{ _id: "m1", tags: '["a","c"]' },
				{ _id: "m2", tags: '["b","c"]' }
			]);
		} finally {
			await first.close();
			await second.close();
		}
	});

	test("a database whose indexes an earlier version built on expressions is rebuilt on columns once, at open, with a log line", async () => {
		const dir = path.join(root, "upgrade");
		// The documents, written before any index.
		const before = new SqliteDocumentStore({ dir });
		const docs: Doc[] = [
			{ _id: "m1", creatorId: "u1", createTime: 1, seq: 1, handle: "one", property: { hasLink: true }, content: "a" },
			{ _id: "m2", creatorId: "u1", createTime: 2, seq: 2, handle: "two", property: { hasLink: false }, content: "b" },
			{ _id: "m3", creatorId: "u2", createTime: 3, content: "c" }
		];
		for (const doc of docs) await before.collection("memos").insert(doc);
		await before.close();
		// The indexes as the versions before field columns made them, and one the store did not make.
		const raw = new DatabaseSync(path.join(dir, DATABASE_FILE));
		raw.exec(`
			CREATE INDEX IF NOT EXISTS "ix:memos:creatorId,-createTime,-_id" ON "c_memos" (json_extract(doc, '$.creatorId') ASC, json_extract(doc, '$.createTime') DESC, _id DESC);
			CREATE UNIQUE INDEX IF NOT EXISTS "ix:memos:seq:unique:sparse" ON "c_memos" (json_extract(doc, '$.seq') ASC) WHERE json_extract(doc, '$.seq') IS NOT NULL;
			CREATE UNIQUE INDEX IF NOT EXISTS "ix:memos:handle:unique" ON "c_memos" (json_extract(doc, '$.handle') ASC);
			CREATE UNIQUE INDEX IF NOT EXISTS "ix:memos:handle:unique:nulls" ON "c_memos" (ifnull(json_extract(doc, '$.handle'), x'')) WHERE json_extract(doc, '$.handle') IS NULL;
			CREATE INDEX IF NOT EXISTS "ix:memos:property.hasLink" ON "c_memos" (json_extract(doc, '$.property.hasLink') ASC);
			CREATE INDEX "by content" ON "c_memos" (json_extract(doc, '$.content'));
		`);
		raw.close();

		const lines: string[] = [];
		const store = await openDocumentStore({ dir, onUpgrade: line => lines.push(line) });
		try {
			expect(lines).toEqual([expect.stringMatching(/^Rebuilt 4 SQLite indexes of 1 collections on field columns .*kept as they are, not the store's: by content$/)]);
			const sqlite = store as SqliteDocumentStore;
			const expressionIndexes = sqlite.statement("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql LIKE '%json_extract%'").all();
			expect(expressionIndexes).toEqual([{ name: "by content" }]);
			const memos = store.collection("memos");
			const specs: IndexSpec[] = [
				{ fields: { creatorId: 1, createTime: -1, _id: -1 } },
				{ fields: { seq: 1 }, unique: true, sparse: true },
				{ fields: { handle: 1 }, unique: true },
				{ fields: { "property.hasLink": 1 } }
			];
			for (const spec of specs) {
				await expect(memos.hasIndex(spec)).resolves.toBe(true);
			}
			// The columns hold the earlier documents' values.
			expect(sqlite.explainFind("memos", { creatorId: "u1" }, { sort: { createTime: -1, _id: -1 }, limit: 2 })).toEqual([
				"SEARCH c_memos USING INDEX ix:memos:creatorId,-createTime,-_id (@creatorId=?)"
			]);
			await expect(ids(memos, { creatorId: "u1" }, { createTime: -1, _id: -1 })).resolves.toEqual(["m2", "m1"]);
			await expect(ids(memos, { "property.hasLink": false })).resolves.toEqual(["m2"]);
			// The unique indexes still hold: a taken seq, a taken handle, a second memo without a handle (m3 has none).
			await expect(memos.insert({ _id: "m4", seq: 2, handle: "four" })).rejects.toMatchObject({ name: "DuplicateKeyError" });
			await expect(memos.insert({ _id: "m4", seq: 4, handle: "one" })).rejects.toMatchObject({ name: "DuplicateKeyError" });
			await expect(memos.update({ _id: "m1" }, { $unset: { handle: true } })).rejects.toMatchObject({ name: "DuplicateKeyError" });
			await memos.insert({ _id: "m4", seq: 4, handle: "four", creatorId: "u2", createTime: 4 });
			await expect(ids(memos, { creatorId: "u2" }, { createTime: -1, _id: -1 })).resolves.toEqual(["m4", "m3"]);
		} finally {
			await store.close();
		}
		const reopened = await openDocumentStore({ dir, onUpgrade: line => lines.push(line) });
		await reopened.close();
		expect(lines).toHaveLength(1);
	});
});
