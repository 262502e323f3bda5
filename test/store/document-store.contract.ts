import type { Collection, Doc, DocumentStore, Filter, IndexSpec } from "../../shared/store/document-store.js";
import { DuplicateKeyError } from "../../shared/store/document-store.js";

export interface ContractOptions {
	/** Each call of `open` reaches the same data, so what one store wrote another reads after close. */
	persistent: boolean;
}

type Person = Doc & {
	name: string;
	age: number;
	tags?: string[];
	address: { city: string; zip?: string };
	scores?: number[];
	items?: { sku: string; qty: number }[];
	nick?: string | null;
};

// Chosen so that each operator case below tells MongoDB's meaning apart from a naive one.
const PEOPLE: Person[] = [
	{
		_id: "a",
		name: "Ada",
		age: 36,
		tags: ["math", "code"],
		address: { city: "London", zip: "N1" },
		scores: [90, 60],
		items: [
			{ sku: "x", qty: 1 },
			{ sku: "y", qty: 5 }
		]
	},
	{ _id: "b", name: "bob", age: 25, tags: ["code"], address: { city: "Paris" }, scores: [75], items: [{ sku: "x", qty: 3 }], nick: null },
	{ _id: "c", name: "Cy", age: 41, tags: [], address: { city: "london" }, scores: [], items: [] },
	{ _id: "d", name: "Dee", age: 25, address: { city: "Berlin", zip: "10115" }, nick: "dd" }
];

const OPERATOR_CASES: [string, Filter, string[]][] = [
	["equality", { name: "Ada" }, ["a"]],
	["equality on an array element", { tags: "code" }, ["a", "b"]],
	["equality on a sub-document", { address: { city: "Paris" } }, ["b"]],
	["dotted path into a sub-document", { "address.city": "Paris" }, ["b"]],
	["dotted path into an array of sub-documents", { "items.sku": "y" }, ["a"]],
	["$eq", { age: { $eq: 25 } }, ["b", "d"]],
	["$ne", { age: { $ne: 25 } }, ["a", "c"]],
	["$ne on an array means no element equals", { tags: { $ne: "code" } }, ["c", "d"]],
	["$gt", { age: { $gt: 36 } }, ["c"]],
	["$gte", { age: { $gte: 36 } }, ["a", "c"]],
	["$lt", { age: { $lt: 36 } }, ["b", "d"]],
	["$lte", { age: { $lte: 25 } }, ["b", "d"]],
	["a range on one field", { age: { $gt: 25, $lt: 41 } }, ["a"]],
	["a range on an array may be met by different elements", { scores: { $gte: 70, $lt: 80 } }, ["a", "b"]],
	["$in", { age: { $in: [25, 41] } }, ["b", "c", "d"]],
	["$in on an array field", { tags: { $in: ["math", "art"] } }, ["a"]],
	["$nin", { age: { $nin: [25] } }, ["a", "c"]],
	["$nin on an array means no element is in the list", { tags: { $nin: ["math"] } }, ["b", "c", "d"]],
	["$exists true (a null value exists)", { nick: { $exists: true } }, ["b", "d"]],
	["$exists false", { nick: { $exists: false } }, ["a", "c"]],
	["$exists true on an empty array", { tags: { $exists: true } }, ["a", "b", "c"]],
	["$exists on a dotted path", { "address.zip": { $exists: false } }, ["b", "c"]],
	["null matches null and missing", { nick: null }, ["a", "b", "c"]],
	["$ne null", { nick: { $ne: null } }, ["d"]],
	["$in with null matches missing", { nick: { $in: [null, "dd"] } }, ["a", "b", "c", "d"]],
	["$regex", { "address.city": { $regex: /^london/ } }, ["c"]],
	["$regex with the i flag", { "address.city": { $regex: /^london$/i } }, ["a", "c"]],
	["a RegExp as the value", { name: /^d/i }, ["d"]],
	["$size", { tags: { $size: 1 } }, ["b"]],
	["$size 0", { tags: { $size: 0 } }, ["c"]],
	["$elemMatch on sub-documents needs one element to meet all", { items: { $elemMatch: { sku: "x", qty: { $gte: 2 } } } }, ["b"]],
	["the same conditions without $elemMatch", { "items.sku": "x", "items.qty": { $gte: 2 } }, ["a", "b"]],
	["$elemMatch on values", { scores: { $elemMatch: { $gte: 70, $lt: 80 } } }, ["b"]],
	["$and", { $and: [{ age: 25 }, { "address.city": "Berlin" }] }, ["d"]],
	["$or", { $or: [{ age: 41 }, { name: "bob" }] }, ["b", "c"]],
	["$or beside a field condition", { age: 25, $or: [{ nick: "dd" }, { tags: "math" }] }, ["d"]],
	["$not", { age: { $not: { $gt: 30 } } }, ["b", "d"]],
	["$not with a RegExp", { name: { $not: /^[A-C]/ } }, ["b", "d"]],
	["$not matches a missing field", { nick: { $not: { $eq: "dd" } } }, ["a", "b", "c"]],
	["$nor", { $nor: [{ age: 25 }, { tags: "math" }] }, ["c"]],
	["an empty filter", {}, ["a", "b", "c", "d"]]
];

export function describeDocumentStoreContract(name: string, open: () => Promise<DocumentStore>, options: ContractOptions): void {
	describe(`document store contract: ${name}`, () => {
		let store: DocumentStore;
		let sequence = 0;

		beforeAll(async () => {
			store = await open();
		});

		afterAll(async () => {
			await store.close();
		});

		function fresh<T extends Doc = Doc>(): Collection<T> {
			sequence += 1;
			return store.collection<T>(`contract_${sequence}`);
		}

		async function people(): Promise<Collection<Person>> {
			const collection = fresh<Person>();
			for (const person of PEOPLE) await collection.insert(structuredClone(person));
			return collection;
		}

		async function ids(collection: Collection, filter: Filter): Promise<string[]> {
			return (await collection.find(filter)).map(doc => doc._id).sort();
		}

		describe("basics", () => {
			test("reports its driver, answers a ping and measures itself", async () => {
				expect(["nedb", "mongodb"]).toContain(store.driver);
				await expect(store.ping()).resolves.toBeUndefined();
				expect(typeof (await store.sizeBytes())).toBe("number");
			});

			test("insert returns the document, find and findOne read it back", async () => {
				const notes = fresh();
				const doc = { _id: "n1", title: "hello", meta: { pinned: true, views: 3 }, tags: ["a", "b"] };
				await expect(notes.insert(structuredClone(doc))).resolves.toEqual(doc);
				await expect(notes.findOne({ _id: "n1" })).resolves.toEqual(doc);
				await expect(notes.find({})).resolves.toEqual([doc]);
				await expect(notes.findOne({ _id: "missing" })).resolves.toBeNull();
				await expect(notes.find({ title: "other" })).resolves.toEqual([]);
			});

			test("count counts what a filter matches", async () => {
				const collection = await people();
				await expect(collection.count({})).resolves.toBe(4);
				await expect(collection.count({ age: 25 })).resolves.toBe(2);
				await expect(collection.count({ age: 99 })).resolves.toBe(0);
			});

			test("estimatedCount counts the collection's documents (after a clean shutdown, exactly)", async () => {
				const collection = await people();
				await expect(collection.estimatedCount()).resolves.toBe(4);
				await collection.remove({ age: 25 }, { multi: true });
				await expect(collection.estimatedCount()).resolves.toBe(2);
			});

			test("dates come back as dates and compare in queries", async () => {
				const events = fresh<Doc & { at: Date }>();
				await events.insert({ _id: "old", at: new Date("2024-01-01T00:00:00.000Z") });
				await events.insert({ _id: "new", at: new Date("2025-06-01T12:30:00.000Z") });
				const found = await events.findOne({ _id: "new" });
				expect(found?.at).toBeInstanceOf(Date);
				expect(found?.at.toISOString()).toBe("2025-06-01T12:30:00.000Z");
				expect(await ids(events, { at: { $gt: new Date("2024-12-31T00:00:00.000Z") } })).toEqual(["new"]);
			});

			test("a document returned by a read is a copy", async () => {
				const notes = fresh();
				await notes.insert({ _id: "n1", tags: ["a"] });
				const first = await notes.findOne({ _id: "n1" });
				(first?.tags as string[]).push("changed");
				await expect(notes.findOne({ _id: "n1" })).resolves.toEqual({ _id: "n1", tags: ["a"] });
			});
		});

		describe("query operators", () => {
			test.each(OPERATOR_CASES)("%s", async (_label, filter, expected) => {
				const collection = await people();
				expect(await ids(collection, filter)).toEqual(expected);
				await expect(collection.count(filter)).resolves.toBe(expected.length);
			});
		});

		describe("query operators with the array fields declared (ensureArrayField), some documents written before", () => {
			test.each(OPERATOR_CASES)("%s", async (_label, filter, expected) => {
				const collection = fresh<Person>();
				for (const person of PEOPLE.slice(0, 2)) await collection.insert(structuredClone(person));
				for (const field of ["tags", "scores", "items", "address", "nick"]) await collection.ensureArrayField(field);
				for (const person of PEOPLE.slice(2)) await collection.insert(structuredClone(person));
				await collection.update({ _id: "a" }, { $push: { tags: "art" } });
				await collection.update({ _id: "a" }, { $pull: { tags: "art" } });
				expect(await ids(collection, filter)).toEqual(expected);
				await expect(collection.count(filter)).resolves.toBe(expected.length);
			});
		});

		describe("sort, skip, limit, projection", () => {
			const rows = [
				{ _id: "r1", group: "b", rank: 1 },
				{ _id: "r2", group: "a", rank: 1 },
				{ _id: "r3", group: "b", rank: 3 },
				{ _id: "r4", group: "a", rank: 2 },
				{ _id: "r5", group: "c", rank: 0 }
			];

			async function ranked(): Promise<Collection> {
				const collection = fresh();
				for (const row of rows) await collection.insert({ ...row });
				return collection;
			}

			test("sorts on several keys in mixed directions", async () => {
				const collection = await ranked();
				const sorted = await collection.find({}, { sort: { group: 1, rank: -1 } });
				expect(sorted.map(doc => doc._id)).toEqual(["r4", "r2", "r3", "r1", "r5"]);
				const reversed = await collection.find({}, { sort: { group: -1, rank: 1 } });
				expect(reversed.map(doc => doc._id)).toEqual(["r5", "r1", "r3", "r2", "r4"]);
			});

			test("skips and limits after sorting", async () => {
				const collection = await ranked();
				const page = await collection.find({}, { sort: { _id: 1 }, skip: 1, limit: 2 });
				expect(page.map(doc => doc._id)).toEqual(["r2", "r3"]);
				const last = await collection.find({ group: { $ne: "c" } }, { sort: { rank: 1, _id: 1 }, skip: 3, limit: 10 });
				expect(last.map(doc => doc._id)).toEqual(["r3"]);
			});

			test("findMerged reads the first of a union of branches in sort order, each document once and whole", async () => {
				const collection = await ranked();
				const branches = [{ group: "a" }, { group: "b" }, { rank: 1 }, { group: "none" }];
				const top = await collection.findMerged(branches, { sort: { rank: -1, _id: 1 }, limit: 3 });
				expect(top).toEqual([rows[2], rows[3], rows[0]]);
				const all = await collection.findMerged(branches, { sort: { rank: 1, _id: -1 }, limit: 10 });
				expect(all.map(doc => doc._id)).toEqual(["r2", "r1", "r4", "r3"]);
			});

			test("projects the named fields and _id", async () => {
				const collection = await ranked();
				const projected = await collection.find({ group: "a" }, { sort: { _id: 1 }, projection: { rank: 1 } });
				expect(projected).toEqual([
					{ _id: "r2", rank: 1 },
					{ _id: "r4", rank: 2 }
				]);
			});
		});

		describe("update", () => {
			test("$set, including a dotted path, leaves other fields alone", async () => {
				const collection = await people();
				await expect(collection.update({ _id: "a" }, { $set: { name: "Ada L.", "address.zip": "EC1" } })).resolves.toBe(1);
				const ada = await collection.findOne({ _id: "a" });
				expect(ada?.name).toBe("Ada L.");
				expect(ada?.address).toEqual({ city: "London", zip: "EC1" });
				expect(ada?.tags).toEqual(["math", "code"]);
			});

			test("$unset removes fields", async () => {
				const collection = await people();
				await collection.update({ _id: "d" }, { $unset: { nick: true, "address.zip": 1 } });
				const dee = await collection.findOne({ _id: "d" });
				expect(dee).not.toHaveProperty("nick");
				expect(dee?.address).toEqual({ city: "Berlin" });
			});

			test("$inc adds to a number and starts a missing one", async () => {
				const counters = fresh();
				await counters.insert({ _id: "c", hits: 5 });
				await counters.update({ _id: "c" }, { $inc: { hits: 2, misses: 1 } });
				await counters.update({ _id: "c" }, { $inc: { hits: -10 } });
				await expect(counters.findOne({ _id: "c" })).resolves.toEqual({ _id: "c", hits: -3, misses: 1 });
			});

			test("$push appends, creates a missing array and takes $each", async () => {
				const collection = await people();
				await collection.update({ _id: "b" }, { $push: { tags: "art", scores: { $each: [1, 2] } } });
				await collection.update({ _id: "d" }, { $push: { tags: "new" } });
				const bob = await collection.findOne({ _id: "b" });
				expect(bob?.tags).toEqual(["code", "art"]);
				expect(bob?.scores).toEqual([75, 1, 2]);
				expect((await collection.findOne({ _id: "d" }))?.tags).toEqual(["new"]);
			});

			test("$pull removes values and elements matching a condition", async () => {
				const collection = await people();
				await collection.update({ _id: "a" }, { $pull: { tags: "math", scores: { $gte: 80 } } });
				const ada = await collection.findOne({ _id: "a" });
				expect(ada?.tags).toEqual(["code"]);
				expect(ada?.scores).toEqual([60]);
				await collection.update({ _id: "a" }, { $pull: { items: { qty: { $gt: 3 } } } });
				expect((await collection.findOne({ _id: "a" }))?.items).toEqual([{ sku: "x", qty: 1 }]);
				await collection.update({ _id: "a" }, { $pull: { items: { sku: "x", qty: 1 } } });
				expect((await collection.findOne({ _id: "a" }))?.items).toEqual([]);
			});

			test("$addToSet adds only what is missing", async () => {
				const collection = await people();
				await collection.update({ _id: "a" }, { $addToSet: { tags: "math" } });
				await collection.update({ _id: "a" }, { $addToSet: { tags: "art" } });
				await collection.update({ _id: "a" }, { $addToSet: { tags: { $each: ["art", "music"] } } });
				expect((await collection.findOne({ _id: "a" }))?.tags).toEqual(["math", "code", "art", "music"]);
			});

			test("updates one match unless multi", async () => {
				const collection = await people();
				await expect(collection.update({ age: 25 }, { $set: { flagged: true } })).resolves.toBe(1);
				await expect(collection.count({ flagged: true })).resolves.toBe(1);
				await expect(collection.update({ age: 25 }, { $set: { flagged: true } }, { multi: true })).resolves.toBe(2);
				await expect(collection.count({ flagged: true })).resolves.toBe(2);
				await expect(collection.count({ flagged: { $exists: false } })).resolves.toBe(2);
			});

			test("a mark on a dotted path: null matches a null parent or a missing field, a value only itself (repair passes, issue 21)", async () => {
				const collection = fresh();
				await collection.insert({ _id: "nulled", cleanup: "link", linking: null });
				await collection.insert({ _id: "missing", cleanup: "link" });
				await collection.insert({ _id: "marked", cleanup: "link", linking: { mark: "m1", names: ["a"] } });
				const clear = { $set: { cleanup: null, linking: null } };
				await expect(collection.update({ _id: "marked", cleanup: "link", "linking.mark": "m0" }, clear)).resolves.toBe(0);
				await expect(collection.update({ _id: "marked", cleanup: "link", "linking.mark": null }, clear)).resolves.toBe(0);
				await expect(collection.update({ _id: "marked", cleanup: "link", "linking.mark": "m1" }, clear)).resolves.toBe(1);
				await expect(collection.update({ _id: "nulled", cleanup: "link", "linking.mark": null }, clear)).resolves.toBe(1);
				await expect(collection.update({ _id: "missing", cleanup: "link", "linking.mark": null }, clear)).resolves.toBe(1);
				expect(await collection.count({ cleanup: "link" })).toBe(0);
			});

			test("an update conditioned on every value read before matches only while none changed (recounts, issue 21)", async () => {
				const collection = fresh();
				await collection.insert({ _id: "totals", count: 3, bytes: 10, pendingChanges: 1, changedAt: 5 });
				const unchanged = { _id: "totals", count: 3, bytes: 10, pendingChanges: 1, changedAt: 5 };
				await collection.update({ _id: "totals" }, { $inc: { pendingChanges: 1 }, $set: { changedAt: 6 } });
				await expect(collection.update(unchanged, { $set: { count: 4, pendingChanges: 0 } })).resolves.toBe(0);
				await collection.update({ _id: "totals" }, { $inc: { pendingChanges: -1 }, $set: { changedAt: 5 } });
				await expect(collection.update(unchanged, { $set: { count: 4, pendingChanges: 0 } })).resolves.toBe(1);
				expect(await collection.findOne({ _id: "totals" })).toEqual({ _id: "totals", count: 4, bytes: 10, pendingChanges: 0, changedAt: 5 });
			});

			test("returns 0 and inserts nothing when nothing matches", async () => {
				const collection = await people();
				await expect(collection.update({ age: 99 }, { $set: { flagged: true } }, { multi: true })).resolves.toBe(0);
				await expect(collection.count({})).resolves.toBe(4);
			});

			test("upsert inserts the filter's equality fields with the update, then updates", async () => {
				const notes = fresh();
				await expect(notes.update({ _id: "n1", kind: "note" }, { $set: { title: "t" }, $inc: { edits: 1 } }, { upsert: true })).resolves.toBe(1);
				await expect(notes.findOne({ _id: "n1" })).resolves.toEqual({ _id: "n1", kind: "note", title: "t", edits: 1 });
				await expect(notes.update({ _id: "n1", kind: "note" }, { $inc: { edits: 1 } }, { upsert: true })).resolves.toBe(1);
				await expect(notes.find({})).resolves.toEqual([{ _id: "n1", kind: "note", title: "t", edits: 2 }]);
			});

			test("upsert keeps equality fields only and gives a string _id when the filter has none", async () => {
				const notes = fresh();
				const filter = { "owner.name": "ada", kind: { $eq: "memo" }, rank: { $gt: 3 } };
				await expect(notes.update(filter, { $set: { rank: 5 } }, { upsert: true })).resolves.toBe(1);
				const [created] = await notes.find({});
				expect(typeof created._id).toBe("string");
				expect(created).toEqual({ _id: created._id, owner: { name: "ada" }, kind: "memo", rank: 5 });
				await expect(notes.update(filter, { $inc: { rank: 1 } }, { upsert: true })).resolves.toBe(1);
				await expect(notes.count({})).resolves.toBe(1);
				await expect(notes.findOne({})).resolves.toEqual({ ...created, rank: 6 });
			});

			test("an upsert whose filter names a taken _id fails with DuplicateKeyError", async () => {
				const notes = fresh();
				await notes.insert({ _id: "n1", kind: "note" });
				await expect(notes.update({ _id: "n1", kind: "task" }, { $set: { title: "t" } }, { upsert: true })).rejects.toBeInstanceOf(DuplicateKeyError);
				await expect(notes.find({})).resolves.toEqual([{ _id: "n1", kind: "note" }]);
			});

			test("an update without operators is refused", async () => {
				const collection = await people();
				await expect(collection.update({ _id: "a" }, {})).rejects.toThrow();
				expect((await collection.findOne({ _id: "a" }))?.name).toBe("Ada");
			});
		});

		describe("findOneAndUpdate", () => {
			test("returns the document as it is after the update", async () => {
				const counters = fresh();
				await counters.insert({ _id: "c", value: 1, label: "x" });
				await expect(counters.findOneAndUpdate({ _id: "c" }, { $inc: { value: 1 }, $set: { label: "y" } })).resolves.toEqual({ _id: "c", value: 2, label: "y" });
			});

			test("returns null and inserts nothing when nothing matches", async () => {
				const counters = fresh();
				await expect(counters.findOneAndUpdate({ _id: "c" }, { $inc: { value: 1 } })).resolves.toBeNull();
				await expect(counters.count({})).resolves.toBe(0);
			});

			test("updates only one of several matches", async () => {
				const collection = await people();
				const updated = await collection.findOneAndUpdate({ age: 25 }, { $set: { flagged: true } });
				expect(["b", "d"]).toContain(updated?._id);
				expect(updated?.flagged).toBe(true);
				await expect(collection.count({ flagged: true })).resolves.toBe(1);
			});

			test("upsert inserts and returns the new document", async () => {
				const counters = fresh();
				await expect(counters.findOneAndUpdate({ _id: "seq" }, { $inc: { value: 1 } }, { upsert: true })).resolves.toEqual({ _id: "seq", value: 1 });
				await expect(counters.findOneAndUpdate({ _id: "seq" }, { $inc: { value: 1 } }, { upsert: true })).resolves.toEqual({ _id: "seq", value: 2 });
				const created = await counters.findOneAndUpdate({ kind: "k" }, { $set: { n: 1 } }, { upsert: true });
				expect(typeof created?._id).toBe("string");
				expect(created).toEqual({ _id: created?._id, kind: "k", n: 1 });
			});
		});

		describe("remove", () => {
			test("removes one match unless multi", async () => {
				const collection = await people();
				await expect(collection.remove({ age: 25 })).resolves.toBe(1);
				await expect(collection.count({ age: 25 })).resolves.toBe(1);
				await expect(collection.remove({ age: { $gte: 0 } }, { multi: true })).resolves.toBe(3);
				await expect(collection.count({})).resolves.toBe(0);
			});

			test("returns 0 when nothing matches", async () => {
				const collection = await people();
				await expect(collection.remove({ _id: "missing" })).resolves.toBe(0);
				await expect(collection.remove({ age: 99 }, { multi: true })).resolves.toBe(0);
				await expect(collection.count({})).resolves.toBe(4);
			});
		});

		describe("duplicate keys and indexes", () => {
			test("a second document with the same _id fails with DuplicateKeyError", async () => {
				const notes = fresh();
				await notes.insert({ _id: "n1", title: "first" });
				const failure = notes.insert({ _id: "n1", title: "second" });
				await expect(failure).rejects.toBeInstanceOf(DuplicateKeyError);
				await expect(failure).rejects.toMatchObject({ collection: notes.name });
				await expect(notes.find({})).resolves.toEqual([{ _id: "n1", title: "first" }]);
			});

			test("a unique index on one field, declared twice", async () => {
				const users = fresh();
				await users.ensureIndex({ fields: { email: 1 }, unique: true });
				await users.ensureIndex({ fields: { email: 1 }, unique: true });
				await users.insert({ _id: "u1", email: "a@example.com" });
				await users.insert({ _id: "u2", email: "b@example.com" });
				await expect(users.insert({ _id: "u3", email: "a@example.com" })).rejects.toBeInstanceOf(DuplicateKeyError);
				await expect(users.count({})).resolves.toBe(2);
			});

			test("an update that would break a unique index fails and changes nothing", async () => {
				const users = fresh();
				await users.ensureIndex({ fields: { email: 1 }, unique: true });
				await users.insert({ _id: "u1", email: "a@example.com" });
				await users.insert({ _id: "u2", email: "b@example.com" });
				await expect(users.update({ _id: "u2" }, { $set: { email: "a@example.com" } })).rejects.toBeInstanceOf(DuplicateKeyError);
				await expect(users.findOneAndUpdate({ _id: "u2" }, { $set: { email: "a@example.com" } })).rejects.toBeInstanceOf(DuplicateKeyError);
				await expect(users.findOne({ _id: "u2" })).resolves.toEqual({ _id: "u2", email: "b@example.com" });
			});

			test("a unique index cannot be declared over duplicate data", async () => {
				const users = fresh();
				await users.insert({ _id: "u1", email: "a@example.com" });
				await users.insert({ _id: "u2", email: "a@example.com" });
				await expect(users.ensureIndex({ fields: { email: 1 }, unique: true })).rejects.toBeInstanceOf(DuplicateKeyError);
			});

			test("a compound unique index clashes only on the whole key", async () => {
				const pages = fresh();
				await pages.ensureIndex({ fields: { space: 1, slug: 1 }, unique: true });
				await pages.insert({ _id: "p1", space: "s1", slug: "home" });
				await pages.insert({ _id: "p2", space: "s1", slug: "about" });
				await pages.insert({ _id: "p3", space: "s2", slug: "home" });
				await expect(pages.insert({ _id: "p4", space: "s1", slug: "home" })).rejects.toBeInstanceOf(DuplicateKeyError);
				await expect(pages.count({})).resolves.toBe(3);
			});

			test("a sparse unique index ignores documents lacking the field", async () => {
				const users = fresh();
				await users.ensureIndex({ fields: { handle: 1 }, unique: true, sparse: true });
				await users.insert({ _id: "u1" });
				await users.insert({ _id: "u2" });
				await users.insert({ _id: "u3", handle: "ada" });
				await expect(users.insert({ _id: "u4", handle: "ada" })).rejects.toBeInstanceOf(DuplicateKeyError);
				await expect(users.count({})).resolves.toBe(3);
			});

			test("a unique index that is not sparse treats a missing field as one value", async () => {
				const users = fresh();
				await users.ensureIndex({ fields: { handle: 1 }, unique: true });
				await users.insert({ _id: "u1" });
				await expect(users.insert({ _id: "u2" })).rejects.toBeInstanceOf(DuplicateKeyError);
			});

			test("a descending compound index that is not unique allows repeats", async () => {
				const memos = fresh();
				await memos.ensureIndex({ fields: { creator: 1, createTime: -1 } });
				await memos.insert({ _id: "m1", creator: "u1", createTime: 1 });
				await memos.insert({ _id: "m2", creator: "u1", createTime: 1 });
				await expect(memos.find({ creator: "u1" }, { sort: { createTime: -1, _id: 1 } })).resolves.toHaveLength(2);
			});

			test("hasIndex tells an index exactly as declared (fields in order, directions, unique, sparse) from any other", async () => {
				const memos = fresh();
				const spec: IndexSpec = { fields: { creator: 1, createTime: -1 } };
				await expect(memos.hasIndex(spec)).resolves.toBe(false);
				await memos.ensureIndex(spec);
				await memos.ensureIndex({ fields: { handle: 1 }, unique: true, sparse: true });
				await expect(memos.hasIndex(spec)).resolves.toBe(true);
				await expect(memos.hasIndex({ fields: { handle: 1 }, unique: true, sparse: true })).resolves.toBe(true);
				const others: IndexSpec[] = [
					{ fields: { creator: 1, createTime: 1 } },
					{ fields: { createTime: -1, creator: 1 } },
					{ fields: { creator: 1 } },
					{ fields: { creator: 1, createTime: -1 }, unique: true },
					{ fields: { handle: 1 }, unique: true },
					{ fields: { handle: 1 } }
				];
				for (const other of others) {
					await expect({ other, exists: await memos.hasIndex(other) }).toEqual({ other, exists: false });
				}
			});
		});

		describe("concurrency", () => {
			test("of 20 concurrent inserts with one unique key exactly one succeeds", async () => {
				const users = fresh();
				await users.ensureIndex({ fields: { email: 1 }, unique: true });
				const results = await Promise.allSettled(
					Array.from({ length: 20 }, (_, i) => users.insert({ _id: `u${i}`, email: "same@example.com" }))
				);
				expect(results.filter(result => result.status === "fulfilled")).toHaveLength(1);
				const failures = results.filter(result => result.status === "rejected");
				expect(failures).toHaveLength(19);
				for (const failure of failures) expect(failure.reason).toBeInstanceOf(DuplicateKeyError);
				await expect(users.count({})).resolves.toBe(1);
			});

			test("concurrent $inc updates are all applied", async () => {
				const counters = fresh();
				await counters.insert({ _id: "c", value: 0 });
				await Promise.all(Array.from({ length: 50 }, () => counters.update({ _id: "c" }, { $inc: { value: 1 } })));
				await expect(counters.findOne({ _id: "c" })).resolves.toEqual({ _id: "c", value: 50 });
			});

			test("concurrent findOneAndUpdate calls each see their own result", async () => {
				const counters = fresh();
				await counters.insert({ _id: "seq", value: 0 });
				const values = await Promise.all(
					Array.from({ length: 20 }, async () => (await counters.findOneAndUpdate({ _id: "seq" }, { $inc: { value: 1 } }))?.value)
				);
				expect([...values].sort((x, y) => Number(x) - Number(y))).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
			});
		});

		describe("lifecycle", () => {
			test("a closed store refuses to serve", async () => {
				const other = await open();
				await other.close();
				await expect(other.ping()).rejects.toThrow();
				expect(() => other.collection("anything")).toThrow();
				await expect(other.close()).resolves.toBeUndefined();
			});

			test("the store has an identity; every opening of one persistent store gives the same", async () => {
				const first = await open();
				const second = await open();
				try {
					expect(first.identity).toMatch(/^[0-9a-f-]{36}$/);
					if (options.persistent) expect(second.identity).toBe(first.identity);
					else expect(second.identity).not.toBe(first.identity);
				} finally {
					await first.close();
					await second.close();
				}
			});

			(options.persistent ? test : test.skip)("data and indexes persist across close and reopen", async () => {
				const name = "contract_persisted";
				const first = await open();
				const written = first.collection(name);
				await written.ensureIndex({ fields: { email: 1 }, unique: true });
				await written.insert({ _id: "u1", email: "a@example.com", at: new Date("2025-01-02T03:04:05.000Z") });
				await written.insert({ _id: "u2", email: "b@example.com", visits: 1 });
				await written.insert({ _id: "u3", email: "c@example.com" });
				await written.update({ _id: "u2" }, { $inc: { visits: 1 } });
				await written.remove({ _id: "u3" });
				await first.close();

				const second = await open();
				try {
					const read = second.collection(name);
					const docs = await read.find({}, { sort: { _id: 1 } });
					expect(docs).toEqual([
						{ _id: "u1", email: "a@example.com", at: new Date("2025-01-02T03:04:05.000Z") },
						{ _id: "u2", email: "b@example.com", visits: 2 }
					]);
					await expect(read.insert({ _id: "u4", email: "a@example.com" })).rejects.toBeInstanceOf(DuplicateKeyError);
				} finally {
					await second.close();
				}
			});
		});
	});
}
