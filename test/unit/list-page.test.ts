import fc from "fast-check";
import { listPage } from "../../shared/paging/list-page.js";
import type { Collection, Doc, Filter, FindOptions, MergedFindOptions, Sort } from "../../shared/store/document-store.js";
import { openDocumentStore } from "../../shared/store/open-store.js";
import { findMergedByBranch, mergeSorted, sortComparator } from "../../shared/store/sort-order.js";
import { rejectionOf } from "../support/service-errors.js";

interface Row extends Doc {
	owner: string;
	kind: string;
	pinned: boolean;
	createTime: number;
	seq: number;
}

const KEY_TYPES = { pinned: "boolean", createTime: "number", _id: "string", seq: "number" } as const;
const direction = fc.constantFrom<1 | -1>(1, -1);

// Sorts as the memo lists build them: some of pinned, createTime and _id, then the unique seq.
const sortArb = fc.tuple(fc.subarray(["pinned", "createTime", "_id"]), fc.array(direction, { minLength: 4, maxLength: 4 })).map(([keys, dirs]) => {
	const sort: Sort = {};
	keys.forEach((key, i) => (sort[key] = dirs[i]));
	sort.seq = dirs[3];
	return sort;
});

// Branches that overlap (an owner and a kind can both select one row), as own and PUBLIC memos do.
const branchesArb = fc.subarray<Filter>([{ owner: "a" }, { owner: "b" }, { kind: "PUBLIC" }, { kind: "SPACE", owner: "c" }], { minLength: 1 });

function matches(row: Row, branch: Filter): boolean {
	return Object.entries(branch).every(([key, value]) => row[key] === value);
}

/**
 * Records every find and each branch of a merged find, so tests can see what each branch asked
 * the store for; `byBranch` makes the merged find separate reads merged in memory, as the
 * MongoDB adapter does (the SQLite store merges in one statement).
 */
function spied(collection: Collection<Row>, calls: FindOptions[], byBranch = false): Collection<Row> {
	const find = (filter: Filter, options: FindOptions = {}) => (calls.push(options), collection.find(filter, options));
	return new Proxy(collection, {
		get(target, key, receiver) {
			if (key === "find") return find;
			if (key === "findMerged") {
				return (branches: readonly Filter[], options: MergedFindOptions) => {
					if (byBranch) return findMergedByBranch(find, branches, options);
					calls.push(...branches.map(() => options));
					return target.findMerged(branches, options);
				};
			}
			return Reflect.get(target, key, receiver) as unknown;
		}
	});
}

describe("listPage (shared/paging/list-page.ts)", () => {
	test.each([
		["the store's merged read", false],
		["branch reads merged in memory", true]
	])("walking every page of merged branches gives exactly the sorted union, each branch read with limit pageSize + 1 (%s)", async (_label, byBranch) => {
		const store = await openDocumentStore({ dir: null });
		let round = 0;
		await fc.assert(
			fc.asyncProperty(
				fc.array(
					fc.record({
						owner: fc.constantFrom("a", "b", "c"),
						kind: fc.constantFrom("PUBLIC", "PRIVATE", "SPACE"),
						pinned: fc.boolean(),
						createTime: fc.integer({ min: 0, max: 3 }),
						id: fc.constantFrom("x", "Y", "z")
					}),
					{ maxLength: 30 }
				),
				sortArb,
				branchesArb,
				fc.integer({ min: 1, max: 6 }),
				async (rows, sort, branches, pageSize) => {
					const collection = store.collection<Row>(`rows${round++}`);
					const docs: Row[] = rows.map((r, i) => ({ _id: `${r.id}${i}`, owner: r.owner, kind: r.kind, pinned: r.pinned, createTime: r.createTime, seq: i + 1 }));
					for (const doc of docs) await collection.insert(doc);
					const expected = docs
						.filter(doc => branches.some(branch => matches(doc, branch)))
						.sort(sortComparator(sort))
						.map(doc => doc._id);

					const calls: FindOptions[] = [];
					const spec = { operation: "Rows", query: { round }, pageSize, sort, keyTypes: KEY_TYPES, branches };
					const walked: string[] = [];
					let pageToken: string | undefined;
					for (let pages = 0; pages <= docs.length + 1; pages++) {
						const page = await listPage(spied(collection, calls, byBranch), { ...spec, pageToken });
						expect(page.items.length).toBeLessThanOrEqual(pageSize);
						walked.push(...page.items.map(doc => doc._id));
						if (page.nextPageToken === "") break;
						pageToken = page.nextPageToken;
					}
					expect(walked).toEqual(expected);
					expect(calls.length).toBeGreaterThan(0);
					expect(calls.every(options => options.limit === pageSize + 1 && options.sort === sort)).toBe(true);
				}
			),
			{ numRuns: 150, seed: 15 }
		);
	});

	test("a token is bound to its operation and query, and a forged position is refused", async () => {
		const store = await openDocumentStore({ dir: null });
		const collection = store.collection<Row>("bound");
		for (let i = 0; i < 3; i++) await collection.insert({ _id: `m${i}`, owner: "a", kind: "PUBLIC", pinned: false, createTime: i, seq: i });
		const spec = { operation: "Rows", query: { q: 1 }, pageSize: 1, sort: { createTime: -1, seq: -1 } as Sort, keyTypes: KEY_TYPES, branches: [{ owner: "a" }] };
		const first = await listPage(collection, { ...spec, pageToken: undefined });
		expect(first.items.map(doc => doc._id)).toEqual(["m2"]);
		expect((await listPage(collection, { ...spec, pageToken: first.nextPageToken })).items.map(doc => doc._id)).toEqual(["m1"]);
		expect((await rejectionOf(listPage(collection, { ...spec, operation: "Other", pageToken: first.nextPageToken }))).type).toBe("INVALID_ARGUMENT");
		expect((await rejectionOf(listPage(collection, { ...spec, query: { q: 2 }, pageToken: first.nextPageToken }))).type).toBe("INVALID_ARGUMENT");
		const forged = Buffer.from(JSON.stringify({ o: "Rows", f: "x", p: { createTime: "1", seq: 1 } })).toString("base64url");
		expect((await rejectionOf(listPage(collection, { ...spec, pageToken: forged }))).type).toBe("INVALID_ARGUMENT");
	});

	test("no branches is an empty page without a store read", async () => {
		const store = await openDocumentStore({ dir: null });
		const calls: FindOptions[] = [];
		const page = await listPage(spied(store.collection<Row>("none"), calls), {
			operation: "Rows",
			query: {},
			pageSize: 5,
			pageToken: undefined,
			sort: { seq: 1 },
			keyTypes: KEY_TYPES,
			branches: []
		});
		expect(page).toEqual({ items: [], nextPageToken: "" });
		expect(calls).toEqual([]);
	});

	test("mergeSorted keeps the first of duplicate ids and at most the limit", () => {
		const row = (id: string, seq: number) => ({ _id: id, seq });
		expect(mergeSorted([[row("a", 3), row("b", 1)], [row("b", 1), row("c", 0)]], { seq: -1 }, 10).map(r => r._id)).toEqual(["a", "b", "c"]);
		expect(mergeSorted([[row("a", 3)], [row("c", 5)]], { seq: -1 }, 1).map(r => r._id)).toEqual(["c"]);
	});
});
