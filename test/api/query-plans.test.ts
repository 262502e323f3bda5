import { jest } from "@jest/globals";
import type { Collection, Doc, Filter, FindOptions, MergedFindOptions } from "../../shared/store/document-store.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import type { Answer } from "../support/memos-client.js";
import { firstAndNextPage as pagesOf, seedEveryList } from "../support/list-fixture.js";
import { usePopulatedApp } from "../support/populated-app.js";
import type { Session } from "../support/users.js";

/**
 * Every list the API serves reads its page from an index (issue 15): the queries each list
 * request sends to the store are recorded, and SQLite's EXPLAIN QUERY PLAN of each must
 * search an index (or walk one in order when the list has no condition), never scan a
 * whole table nor sort the matches in a temporary B-tree. The same index specifications
 * serve MongoDB.
 */

const { app, api, admin, users: [alice, bob] } = usePopulatedApp(2);

interface Recorded {
	collection: string;
	filter: Filter;
	options: FindOptions;
}

/** A merged read of several branches (Collection.findMerged): each branch is also checked as the find it stands for. */
interface RecordedMerge {
	collection: string;
	branches: Filter[];
	options: MergedFindOptions;
}

function store(): SqliteDocumentStore {
	const documents = documentsOf(app().node.broker);
	if (!(documents instanceof SqliteDocumentStore)) throw new Error("the plan tests need the SQLite store");
	return documents;
}

/** The finds `request` makes that read a list (sorted or limited), each branch of a merged read among them, and its merged reads. */
async function listQueriesOf(request: () => Promise<Answer<unknown>>): Promise<{ finds: Recorded[]; merges: RecordedMerge[] }> {
	const prototype = Object.getPrototypeOf(store().collection("memos")) as Collection<Doc>;
	const find = jest.spyOn(prototype, "find");
	const findMerged = jest.spyOn(prototype, "findMerged");
	try {
		const res = await request();
		if (res.status !== 200) throw new Error(`answered ${res.status}: ${res.text}`);
		const merges = findMerged.mock.calls.map(([branches, options], i) => ({ collection: (findMerged.mock.contexts[i] as Collection<Doc>).name, branches: [...branches], options }));
		const finds = find.mock.calls
			.map(([filter, options], i) => ({ collection: (find.mock.contexts[i] as Collection<Doc>).name, filter, options: options ?? {} }))
			.filter(call => call.options.sort !== undefined || call.options.limit !== undefined);
		return { finds: [...finds, ...merges.flatMap(merge => merge.branches.map(filter => ({ collection: merge.collection, filter, options: { ...merge.options } })))], merges };
	} finally {
		find.mockRestore();
		findMerged.mockRestore();
	}
}

function planOf(query: Recorded): string[] {
	return store().explainFind(query.collection, query.filter, query.options);
}

/** A branch of soft-deleted memos (showDeleted): a range on deleteTime, whose few matches are sorted apart. */
function isDeletedBranch(query: Recorded): boolean {
	const branch = Array.isArray(query.filter.$and) ? (query.filter.$and[0] as Filter) : query.filter;
	return query.collection === "memos" && JSON.stringify(branch.deleteTime) === JSON.stringify({ $gt: 0 });
}

/** The plan reads through an index: a SEARCH of the table, or an ordered index walk where the list has no condition. */
function expectIndexServed(query: Recorded): void {
	const plan = planOf(query);
	const table = `c_${query.collection}`;
	const described = `${query.collection}.find(${JSON.stringify(query.filter)}, ${JSON.stringify(query.options)}):\n${plan.join("\n")}`;
	const unconditioned = Object.keys(query.filter).length === 0;
	const tempSort = plan.some(line => line.includes("USE TEMP B-TREE"));
	expect({ query: described, tempSort: tempSort && !isDeletedBranch(query) }).toEqual({ query: described, tempSort: false });
	expect({ query: described, fullScan: plan.some(line => line === `SCAN ${table}`) }).toEqual({ query: described, fullScan: false });
	const indexed = plan.some(line => line.startsWith(`SEARCH ${table} USING`) || (unconditioned && line.startsWith(`SCAN ${table} USING`)));
	expect({ query: described, indexed }).toEqual({ query: described, indexed: true });
}

/**
 * A merged read is one statement whose branches are the finds checked above: besides their
 * plans, it may sort only what one branch gave (its at most `limit` rows, `SCAN (subquery-N)`)
 * to merge them (and the deleted branch's matches, sorted apart as above), and then reads the
 * chosen documents by rowid.
 */
function expectMergeServed(merge: RecordedMerge): void {
	const plan = store().explainFindMerged(merge.collection, merge.branches, merge.options);
	const table = `c_${merge.collection}`;
	const described = `${merge.collection}.findMerged(${JSON.stringify(merge.branches)}, ${JSON.stringify(merge.options)}):\n${plan.join("\n")}`;
	const deletedBranch = merge.branches.some(filter => isDeletedBranch({ collection: merge.collection, filter, options: {} }));
	const unboundedSorts = plan.filter((line, i) => line.includes("USE TEMP B-TREE") && !plan[i - 1]?.startsWith("SCAN (subquery-") && !(deletedBranch && plan[i - 1]?.startsWith(`SEARCH ${table} USING`)));
	expect({ query: described, unboundedSorts }).toEqual({ query: described, unboundedSorts: [] });
	expect({ query: described, fullScan: plan.some(line => line === `SCAN ${table}`) }).toEqual({ query: described, fullScan: false });
	expect({ query: described, searches: plan.filter(line => line.startsWith(`SEARCH ${table} USING`)).length }).toEqual({ query: described, searches: merge.branches.length });
	expect({ query: described, documentsByRowid: plan.at(-1) }).toEqual({ query: described, documentsByRowid: "SEARCH m USING INTEGER PRIMARY KEY (rowid=?)" });
}

async function expectListServed(request: () => Promise<Answer<unknown>>, atLeast = 1): Promise<Recorded[]> {
	const { finds, merges } = await listQueriesOf(request);
	expect(finds.length).toBeGreaterThanOrEqual(atLeast);
	for (const query of finds) expectIndexServed(query);
	for (const merge of merges) expectMergeServed(merge);
	return finds;
}

let space = "";
let memo = "";

beforeAll(async () => {
	({ space, memo } = await seedEveryList(api, alice(), bob(), "plans"));
});

/** A list's first page of one item, then its second page through the token: both positions. */
function firstAndNextPage(path: string, as: Session | null, query: Record<string, string> = {}): Promise<void> {
	return pagesOf(api, request => expectListServed(request), path, as, query);
}

describe("ListMemos", () => {
	const orders = ["", "create_time desc", "create_time asc", "update_time desc", "update_time asc", "pinned desc", "pinned asc", "pinned desc, create_time desc", "pinned asc, create_time desc", "pinned desc, update_time desc", "pinned desc, update_time asc", "name desc", "name asc", "create_time desc, update_time asc", "update_time asc, name desc", "create_time asc, pinned desc", "create_time desc, update_time asc, name asc", "update_time asc, create_time asc, name desc"];

	test.each(orders)("orderBy %j, signed in (own, PUBLIC, PROTECTED, each space), first and next page", async orderBy => {
		await firstAndNextPage("/memos", bob(), orderBy === "" ? {} : { orderBy });
		await firstAndNextPage("/memos", alice(), orderBy === "" ? {} : { orderBy });
	});

	test("anonymous callers read the PUBLIC branch", async () => {
		await api.setAccessMode(admin(), "PUBLIC");
		try {
			await firstAndNextPage("/memos", null);
		} finally {
			await api.setAccessMode(admin(), "PRIVATE");
		}
	});

	test("archived memos, a filter, deleted memos shown", async () => {
		await expectListServed(() => api.list(alice(), { state: "ARCHIVED" }));
		await expectListServed(() => api.list(alice(), { filter: `"plans" in tags && visibility == "PUBLIC"` }));
		await firstAndNextPage("/memos", alice(), { showDeleted: "true" });
	});
});

describe("the lists of one memo and the other resources", () => {
	test("comments, in each order", async () => {
		for (const orderBy of ["", "create_time desc", "update_time asc", "name desc"]) await firstAndNextPage(`/${memo}/comments`, alice(), orderBy === "" ? {} : { orderBy });
	});

	test("reactions, relations, shares and attachments of a memo", async () => {
		await firstAndNextPage(`/${memo}/reactions`, alice());
		await firstAndNextPage(`/${memo}/relations`, alice());
		await expectListServed(() => api.request("GET", `/${memo}/shares`, { as: alice() }));
		await expectListServed(() => api.request("GET", `/${memo}/attachments`, { as: alice() }));
	});

	test("attachments, spaces, space members, users and identity providers", async () => {
		await firstAndNextPage("/attachments", alice());
		await firstAndNextPage("/attachments", bob());
		for (const orderBy of ["filename asc", "mime_type asc", "size asc"]) await firstAndNextPage("/attachments", alice(), { orderBy });
		await firstAndNextPage("/spaces", alice());
		await firstAndNextPage(`/${space}/members`, alice());
		await firstAndNextPage("/users", admin());
		await expectListServed(() => api.request("GET", "/identity-providers", { as: admin() }));
	});

	test("a user's shortcuts", async () => {
		await firstAndNextPage("/users/user1/shortcuts", alice());
		await firstAndNextPage("/users/user1/notifications", alice());
	});
});
