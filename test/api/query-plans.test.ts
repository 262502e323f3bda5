import { jest } from "@jest/globals";
import type { Collection, Doc, Filter, FindOptions } from "../../shared/store/document-store.js";
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

function store(): SqliteDocumentStore {
	const documents = documentsOf(app().node.broker);
	if (!(documents instanceof SqliteDocumentStore)) throw new Error("the plan tests need the SQLite store");
	return documents;
}

/** The finds `request` makes that read a list (sorted or limited). */
async function listQueriesOf(request: () => Promise<Answer<unknown>>): Promise<Recorded[]> {
	const prototype = Object.getPrototypeOf(store().collection("memos")) as Collection<Doc>;
	const find = jest.spyOn(prototype, "find");
	try {
		const res = await request();
		if (res.status !== 200) throw new Error(`answered ${res.status}: ${res.text}`);
		return find.mock.calls
			.map(([filter, options], i) => ({ collection: (find.mock.contexts[i] as Collection<Doc>).name, filter, options: options ?? {} }))
			.filter(call => call.options.sort !== undefined || call.options.limit !== undefined);
	} finally {
		find.mockRestore();
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

async function expectListServed(request: () => Promise<Answer<unknown>>, atLeast = 1): Promise<Recorded[]> {
	const queries = await listQueriesOf(request);
	expect(queries.length).toBeGreaterThanOrEqual(atLeast);
	for (const query of queries) expectIndexServed(query);
	return queries;
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
