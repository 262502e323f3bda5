import { randomUUID } from "node:crypto";
import { jest } from "@jest/globals";
import mongoose from "mongoose";
import type { Collection, Doc, Filter, FindOptions, IndexSpec, MergedFindOptions, Sort } from "../../shared/store/document-store.js";
import { MAX_REGEX_BYTES } from "../../shared/cel/text-match.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import type { Answer } from "../support/memos-client.js";
import { boundsOf, unservedReason } from "../support/mongo-planner.js";
import { firstAndNextPage as pagesOf, ok, seedEveryList } from "../support/list-fixture.js";
import { usePopulatedApp } from "../support/populated-app.js";
import { waitFor } from "../support/processes.js";
import type { Session } from "../support/users.js";

/**
 * Every query the services send to the document store while serving lists and clean-ups
 * (issue 21) is recorded at the store port, with the indexes the services declare, and
 * checked against a model of MongoDB's planner (test/support/mongo-planner.ts): an index
 * serves its conditions and its order (no blocking sort, no collection scan), every sorted
 * read is limited, and a page after the first starts at its position through a range on the
 * first key the branch does not fix. With MONGO_URL, the same shapes run under MongoDB's
 * `explain("executionStats")` on a copy of the recorded data: no SORT stage, no COLLSCAN.
 */

type Operation = "find" | "findOne" | "count" | "update" | "remove" | "findOneAndUpdate";
const OPERATIONS: Operation[] = ["find", "findOne", "count", "update", "remove", "findOneAndUpdate"];

interface Recorded {
	collection: string;
	operation: Operation;
	filter: Filter;
	options: FindOptions;
}

const declared = new Map<string, IndexSpec[]>();
let recording: Recorded[] | null = null;
const allShapes = new Map<string, Recorded>();

// Spies on the SQLite collections' methods from before the app starts, so the index
// declarations of every service's start-up are seen too.
beforeAll(async () => {
	const probe = new SqliteDocumentStore({ dir: null });
	const prototype = Object.getPrototypeOf(probe.collection("probe")) as Record<string, (...args: unknown[]) => unknown>;
	await probe.close();
	const ensureIndex = prototype.ensureIndex;
	jest.spyOn(prototype as unknown as Collection<Doc>, "ensureIndex").mockImplementation(function (this: Collection<Doc>, spec: IndexSpec) {
		declared.set(this.name, [...(declared.get(this.name) ?? []), spec]);
		return ensureIndex.call(this, spec) as Promise<void>;
	});
	for (const operation of OPERATIONS) {
		const original = prototype[operation];
		jest.spyOn(prototype as unknown as Collection<Doc>, operation).mockImplementation(function (this: Collection<Doc>, ...args: unknown[]) {
			const options = operation === "find" ? ((args[1] as FindOptions | undefined) ?? {}) : {};
			recording?.push({ collection: this.name, operation, filter: args[0] as Filter, options });
			return original.apply(this, args) as never;
		});
	}
	// A merged read (Collection.findMerged) is recorded as the limited find of each of its branches,
	// which is how the MongoDB adapter reads it.
	const findMerged = prototype.findMerged;
	jest.spyOn(prototype as unknown as Collection<Doc>, "findMerged").mockImplementation(function (this: Collection<Doc>, branches: readonly Filter[], options: MergedFindOptions) {
		for (const filter of branches) recording?.push({ collection: this.name, operation: "find", filter, options: { ...options } });
		return findMerged.call(this, branches, options) as Promise<Doc[]>;
	});
});

afterAll(() => jest.restoreAllMocks());

const { app, api, admin, users: [alice, bob, carol] } = usePopulatedApp(3);

/** The store operations `request` makes (it must succeed). */
async function queriesOf(request: () => Promise<unknown>): Promise<Recorded[]> {
	const calls: Recorded[] = [];
	recording = calls;
	try {
		const res = await request();
		if (typeof res === "object" && res !== null && "status" in res && (res as Answer).status !== 200) throw new Error(`answered ${(res as Answer).status}: ${(res as Answer).text}`);
	} finally {
		recording = null;
	}
	return calls;
}

function describeQuery(query: Recorded): string {
	return `${query.collection}.${query.operation}(${JSON.stringify(query.filter)}, ${JSON.stringify(query.options)})`;
}

/** A branch of soft-deleted memos (showDeleted): a range on deleteTime, sorted apart (as the SQLite plan test allows). */
function isDeletedBranch(query: Recorded): boolean {
	const bounds = boundsOf(query.filter);
	return query.collection === "memos" && query.operation === "find" && bounds.get("deleteTime") === "range" && bounds.get("creatorId") === "point";
}

/** The deleted branch must read its caller's soft-deleted memos only: an index on the creator, then deleteTime. */
function deletedBranchProblem(): string | null {
	const bounded = (declared.get("memos") ?? []).some(index => {
		const [first, second] = Object.keys(index.fields);
		return first === "creatorId" && second === "deleteTime";
	});
	return bounded ? null : "the deleted branch is not bounded to its caller's memos by an index on (creatorId, deleteTime)";
}

/** The keyset condition of a page after the first: an `$or` whose branches test only sort keys. */
function hasPositionCondition(filter: Filter, sort: Sort): boolean {
	const ors: Filter[][] = [];
	const visit = (f: Filter) => {
		if (Array.isArray(f.$and)) for (const part of f.$and as Filter[]) visit(part);
		if (Array.isArray(f.$or)) ors.push(f.$or as Filter[]);
	};
	visit(filter);
	return ors.some(branches => branches.every(branch => Object.keys(branch).every(key => key in sort)));
}

/** Collections the contract lists whole (contract 1.7: ListMemoShares, a memo's links; ListIdentityProviders, set by admins). */
const UNPAGED = new Set(["auth_identity_providers", "memo_shares"]);

/** A read of what the items of one page carry (their reactions, attachments): the first sort key is the item, bound by `$in`. */
function isChildrenOfPage(query: Recorded): boolean {
	const [first] = Object.keys(query.options.sort ?? {});
	const bound = query.filter[first];
	return typeof bound === "object" && bound !== null && "$in" in bound && Object.keys(query.filter).length === 1;
}

/** One memo's attachments, which its Memo message lists whole (contract 4.1), as CreateMemo and UpdateMemo answer them. */
function isOneMemosAttachments(query: Recorded): boolean {
	return query.collection === "attachments" && Object.keys(query.filter).length === 1 && typeof query.filter.memoId === "string";
}

/** What is wrong with `query` for MongoDB, or null. */
function problemOf(query: Recorded): string | null {
	const sort = query.options.sort;
	const unconditioned = Object.keys(query.filter).length === 0;
	// findOne of anything stops at the first document it reads.
	if (query.operation === "findOne" && unconditioned) return null;
	if (sort !== undefined && query.options.limit === undefined && !isChildrenOfPage(query) && !isOneMemosAttachments(query) && !UNPAGED.has(query.collection)) return "a sorted read without a limit";
	if (isDeletedBranch(query)) return deletedBranchProblem();
	const reason = unservedReason({ filter: query.filter, sort }, declared.get(query.collection) ?? []);
	if (reason !== null) return reason;
	if (sort !== undefined && hasPositionCondition(query.filter, sort)) {
		const bounds = boundsOf(query.filter);
		const first = Object.keys(sort).find(key => bounds.get(key) !== "point");
		if (first !== undefined && bounds.get(first) !== "range") return `the page position is no range on ${first}: the index is read from the start of the branch`;
	}
	return null;
}

/** The byte lengths of the regular expressions in `filter`. */
function regexLengths(filter: unknown): number[] {
	if (filter instanceof RegExp) return [Buffer.byteLength(filter.source)];
	if (typeof filter !== "object" || filter === null) return [];
	return Object.values(filter).flatMap(regexLengths);
}

function expectServed(queries: Recorded[]): void {
	expect(queries.flatMap(query => regexLengths(query.filter)).filter(bytes => bytes > MAX_REGEX_BYTES)).toEqual([]);
	const problems = queries.map(query => ({ query: describeQuery(query), problem: problemOf(query) }));
	for (const query of queries) allShapes.set(describeQuery(query), query);
	expect(problems.filter(p => p.problem !== null)).toEqual([]);
}

async function expectRequestServed(request: () => Promise<unknown>): Promise<Recorded[]> {
	const queries = await queriesOf(request);
	expect(queries.length).toBeGreaterThan(0);
	expectServed(queries);
	return queries;
}

/** A list's first page of one item, then its second page through the token. */
function firstAndNextPage(path: string, as: Session | null, query: Record<string, string> = {}): Promise<void> {
	return pagesOf(api, expectRequestServed, path, as, query);
}

let space = "";
let memo = "";
let doomed = "";

beforeAll(async () => {
	({ space, memo } = await seedEveryList(api, alice(), bob(), "shapes"));
	for (const visibility of ["PUBLIC", "PROTECTED", "PUBLIC"]) await ok(api.create(bob(), { content: `bob's ${visibility} memo #shapes/sub`, visibility }));
	for (let i = 0; i < 2; i++) await ok(api.request("POST", "/users/user1/personalAccessTokens", { as: alice(), body: {} }));
	doomed = (await ok(api.create(carol(), { content: "carol's memo #gone", visibility: "PUBLIC" }))).name;
	await ok(api.request("POST", `/${doomed}/comments`, { as: carol(), body: { content: "carol's comment" } }));
	await ok(api.request("POST", `/${memo}/reactions`, { as: carol(), body: { reaction: { reactionType: "🔥" } } }));
	await ok(api.request("POST", "/attachments", { as: carol(), body: { filename: "c.txt", content: "aGk=", memo: doomed } }));
	await ok(api.request("POST", "/users/user3/shortcuts", { as: carol(), body: { title: "mine", filter: "pinned" } }));
});

describe("ListMemos", () => {
	const orders = [
		"",
		"create_time desc",
		"create_time asc",
		"update_time desc",
		"update_time asc",
		"pinned desc",
		"pinned asc",
		"pinned desc, create_time desc",
		"pinned desc, create_time asc",
		"pinned asc, create_time desc",
		"pinned asc, create_time asc",
		"pinned desc, update_time desc",
		"pinned asc, update_time desc",
		"pinned desc, update_time asc",
		"name desc",
		"name asc",
		"name asc, create_time desc",
		// Compound orders: branches split on pinned, served by the indexes that begin with it (memos-store.ts).
		"create_time desc, update_time desc",
		"create_time asc, update_time desc",
		"update_time desc, create_time asc",
		"update_time asc, create_time asc",
		"create_time desc, name asc",
		"update_time asc, name asc",
		"update_time desc, pinned asc",
		"pinned asc, name desc",
		"pinned desc, create_time asc, update_time desc",
		"create_time asc, pinned desc, update_time asc",
		// Both time keys, then name: read by the times and the sequence, each page's end group again by name (list-page.ts, groupedBy).
		"create_time desc, update_time desc, name asc",
		"create_time asc, update_time desc, name asc",
		"update_time desc, create_time asc, name desc",
		"update_time asc, create_time asc, name asc",
		"pinned desc, create_time asc, update_time asc, name desc",
		"update_time desc, create_time desc, pinned asc, name asc"
	];

	test.each(orders)("orderBy %j: each reader's branches, first and next page", async orderBy => {
		const query: Record<string, string> = orderBy === "" ? {} : { orderBy };
		await firstAndNextPage("/memos", bob(), query);
		await firstAndNextPage("/memos", alice(), query);
	});

	test("anonymous callers", async () => {
		await api.setAccessMode(admin(), "PUBLIC");
		try {
			await firstAndNextPage("/memos", null);
			await firstAndNextPage("/memos", null, { orderBy: "pinned asc, update_time asc" });
		} finally {
			await api.setAccessMode(admin(), "PRIVATE");
		}
	});

	const filters = [
		`"shapes" in tags`,
		`tags.exists(t, t.startsWith("shapes"))`,
		`content.contains("memo") && visibility in ["PUBLIC", "PROTECTED"]`,
		`creator == "users/user1" || has_code`,
		`pinned && created_ts > now - duration("24h")`,
		`space == null && !has_link`,
		`size(tags) >= 1 && updated_ts <= now`
	];

	test.each(filters)("filter %j, first and next page", async filter => {
		await firstAndNextPage("/memos", alice(), { filter });
		await firstAndNextPage("/memos", alice(), { filter, orderBy: "pinned desc, update_time asc" });
	});

	test("a 4.7 KB content.contains filter (within the filter's 8192 bytes) finds its memo, its pattern within MongoDB's 32,764 bytes", async () => {
		const text = "k.ſ(ǅ)\\".repeat(520).slice(0, 4700);
		const created = await ok(api.create(alice(), { content: `long ${text} memo`, visibility: "PRIVATE" }));
		// Case-insensitive: the upper-case spelling finds the memo (ſ folds to s, ǅ to ǆ).
		const filter = `content.contains(${JSON.stringify(text.toUpperCase())})`;
		expect(Buffer.byteLength(filter)).toBeGreaterThanOrEqual(4700);
		expect(Buffer.byteLength(filter)).toBeLessThanOrEqual(8192);
		let found: string[] = [];
		const queries = await expectRequestServed(async () => {
			const res = await api.list(alice(), { filter });
			found = res.body.memos.map(m => m.name);
			return res;
		});
		expect(found).toEqual([created.name]);
		expect(Math.max(...queries.flatMap(query => regexLengths(query.filter)))).toBeGreaterThanOrEqual(4700);
	});

	test("archived memos and deleted memos shown", async () => {
		await expectRequestServed(() => api.list(alice(), { state: "ARCHIVED" }));
		await firstAndNextPage("/memos", alice(), { showDeleted: "true" });
	});
});

describe("the lists of one memo", () => {
	const commentOrders = ["", "create_time desc", "update_time asc", "update_time desc", "name desc", "name asc", "create_time desc, update_time asc", "update_time asc, create_time asc, name desc"];
	test.each(commentOrders)("comments, orderBy %j", async orderBy => {
		await firstAndNextPage(`/${memo}/comments`, alice(), orderBy === "" ? {} : { orderBy });
	});

	test("reactions, relations, shares and attachments", async () => {
		await firstAndNextPage(`/${memo}/reactions`, alice());
		await firstAndNextPage(`/${memo}/relations`, alice());
		await expectRequestServed(() => api.request("GET", `/${memo}/shares`, { as: alice() }));
		await firstAndNextPage(`/${memo}/attachments`, alice());
	});
});

describe("ListAttachments", () => {
	const orders = ["", "create_time asc", "filename asc", "filename desc", "mime_type asc", "mime_type desc", "size asc", "size desc"];

	test.each(orders)("orderBy %j, the caller's own and a space's", async orderBy => {
		const query: Record<string, string> = orderBy === "" ? {} : { orderBy };
		await firstAndNextPage("/attachments", alice(), query);
		await firstAndNextPage("/attachments", bob(), query);
	});

	test("filters", async () => {
		await firstAndNextPage("/attachments", alice(), { filter: `mime_type == "text/plain" && filename.startsWith("f")` });
		await firstAndNextPage("/attachments", alice(), { filter: `memo_id != null` });
		await expectRequestServed(() => api.request("GET", "/attachments", { as: bob(), query: { filter: `space == "${space}"` } }));
	});
});

describe("the other lists and counts", () => {
	test("spaces, members, users, tokens, shortcuts, identity providers", async () => {
		await firstAndNextPage("/spaces", alice());
		await firstAndNextPage(`/${space}/members`, alice());
		await firstAndNextPage("/users", admin());
		await firstAndNextPage("/users/user1/personalAccessTokens", alice());
		await firstAndNextPage("/users/user1/shortcuts", alice());
		await firstAndNextPage("/users/user1/notifications", alice());
		await expectRequestServed(() => api.request("GET", "/identity-providers", { as: admin() }));
	});

	test("the anonymous instance profile (the instance's first ADMIN, whether any user exists)", async () => {
		await expectRequestServed(() => api.request("GET", "/instance/profile", { as: null }));
	});

	test("every collection declares at most 63 indexes (MongoDB's limit is 64 with _id's)", () => {
		const counts = [...declared].map(([name, specs]) => ({ name, indexes: new Set(specs.map(spec => JSON.stringify(spec))).size }));
		expect(counts.find(c => c.name === "memos")?.indexes).toBeGreaterThan(40);
		expect(counts.filter(c => c.indexes > 63)).toEqual([]);
	});

	test("instance statistics (counters each owner keeps or reads from an index)", async () => {
		await expectRequestServed(() => api.request("GET", "/instance/stats", { as: admin() }));
	});

	test("user statistics", async () => {
		await expectRequestServed(() => api.request("GET", "/users/user1:getStats", { as: bob() }));
		await expectRequestServed(() => api.request("GET", "/users:stats", { as: bob() }));
	});
});

describe("clean-ups", () => {
	test("DeleteMemo (soft, then purged), the purge of expired deletions and half-done deletions, pending notifications, the recount of spaces, DeleteSpace, DeleteUser", async () => {
		const victim = (await ok(api.create(alice(), { content: "to be deleted", visibility: "PUBLIC" }))).name;
		await ok(api.request("POST", "/attachments", { as: alice(), body: { filename: "v.txt", content: "aGk=", memo: victim } }));
		await ok(api.request("POST", `/${victim}/reactions`, { as: bob(), body: { reaction: { reactionType: "👀" } } }));
		await expectRequestServed(() => api.remove(alice(), victim));
		await expectRequestServed(() => api.remove(alice(), victim, "true"));
		// A memo whose attachment links were left pending, for the memos' repair pass.
		const linked = (await ok(api.create(alice(), { content: "links left pending" }))).name.slice("memos/".length);
		await documentsOf(app().node.broker).collection("memos").update({ _id: linked }, { $set: { cleanup: "link", linking: { mark: "m", names: [] } } });
		const memos = app().node.broker.getLocalService("memos") as unknown as { purgeExpiredMemos(now: number): Promise<number> };
		await expectRequestServed(() => memos.purgeExpiredMemos(Date.now() + 365 * 24 * 3600_000));
		// A save whose notifications were left pending long ago, for their repair pass.
		await documentsOf(app().node.broker).collection("memos").update({ _id: memo.slice("memos/".length) }, { $set: { notifyPending: 0 } });
		const notifier = memos as unknown as { notifyPendingMemos(now: number): Promise<number> };
		await expectRequestServed(() => notifier.notifyPendingMemos(Date.now()));
		// A space with a membership change left pending long ago, for the repair pass to recount.
		await documentsOf(app().node.broker).collection("spaces").update({ _id: "shapes-two" }, { $inc: { pendingChanges: 1 }, $set: { changedAt: 0 } });
		const spaces = app().node.broker.getLocalService("spaces") as unknown as { repairCounters(now: number): Promise<number> };
		const recount = await expectRequestServed(() => spaces.repairCounters(Date.now()));
		expect(recount.filter(query => query.collection === "space_members" && query.operation === "count")).toHaveLength(2);
		// An attachment removal left half-done and stored totals left pending long ago, for the attachments' repair pass.
		const documents = documentsOf(app().node.broker);
		await documents.collection("attachment_removals").insert({ _id: "half-removed", blobKey: null, size: 0, since: 0 });
		await documents.collection("attachment_totals").update({ _id: "attachments" }, { $inc: { pendingChanges: 1 }, $set: { changedAt: 0 } });
		await documents.collection("attachment_blob_claims").insert({ _id: "attachments/never-written", attachmentId: "never-written", since: 0 });
		const attachments = app().node.broker.getLocalService("attachments") as unknown as { repairStorage(now: number): Promise<Record<string, unknown>> };
		let repaired: Record<string, unknown> = {};
		await expectRequestServed(async () => (repaired = await attachments.repairStorage(Date.now())));
		expect(repaired).toEqual({ removals: 1, recounted: true, orphanedBlobs: 1 });
		const attachment = (await ok(api.request<{ name: string }>("POST", "/attachments", { as: alice(), body: { filename: "w.txt", content: "aGk=" } }))).name;
		await expectRequestServed(() => api.request("DELETE", `/${attachment}`, { as: alice() }));
		await expectRequestServed(() => api.request("DELETE", "/spaces/shapes-two", { as: alice() }));
		await expectRequestServed(() => api.request("DELETE", "/users/user3", { as: admin() }));
	});
});

describe("webhooks", () => {
	test("recording deliveries, the delivery worker's pass and housekeeping, the memos' relay pass, deleting a webhook", async () => {
		const documents = documentsOf(app().node.broker);
		// Stored directly: a loopback URL, which the guard refuses at each attempt, so nothing leaves the machine.
		const userId = (await documents.collection("users").findOne({ username: "user1" }))!._id;
		await documents.collection("auth_webhooks").insert({ _id: "shapes-hook", userId, url: "http://127.0.0.1:9/hook", displayName: "", signingSecret: "s", createTime: 0, updateTime: 0 });
		const worker = app().node.broker.getLocalService("webhooks") as unknown as { deliverDue(): Promise<void>; housekeeping(): Promise<void> };
		// The change is recorded, and the worker (told at once) takes the lane and makes its attempt.
		const served = await expectRequestServed(async () => {
			await api.create(alice(), { content: "for the webhook" });
			await waitFor("the attempt", async () => ((await documents.collection("auth_webhook_deliveries").count({ webhookId: "shapes-hook", attempts: 1 })) === 1 ? true : undefined), 60000);
			await worker.deliverDue();
		});
		expect(served.some(query => query.collection === "auth_webhook_lanes")).toBe(true);
		await expectRequestServed(() => worker.housekeeping());
		const pending = (await ok(api.create(alice(), { content: "left in the outbox" }))).name.slice("memos/".length);
		const memos = app().node.broker.getLocalService("memos") as unknown as { relayOutbox(): Promise<void> };
		// relayOutbox joins a pass already running (the service's timer starts one every 5 s), whose queries may all
		// precede the recording: the second call below is a pass that runs wholly inside it. Draining first leaves
		// the entry pushed next to the recorded passes.
		await memos.relayOutbox();
		await documents.collection("memos").update({ _id: pending }, { $push: { outbox: { id: "left", event: "memo.updated", time: Date.now() } }, $set: { outboxPending: true } });
		await expectRequestServed(async () => {
			await memos.relayOutbox();
			await memos.relayOutbox();
		});
		await expectRequestServed(() => api.request("DELETE", "/users/user1/webhooks/shapes-hook", { as: alice() }));
	});
});

const mongoUrl = process.env.MONGO_URL;
const onMongo = mongoUrl ? describe : describe.skip;

onMongo("on MongoDB: explain of every recorded shape over a copy of the data", () => {
	const dbName = `memos_shapes_${randomUUID().replaceAll("-", "")}`;
	let connection: mongoose.Connection;

	beforeAll(async () => {
		connection = await mongoose.createConnection(mongoUrl as string, { dbName, serverSelectionTimeoutMS: 15_000 }).asPromise();
		const sqlite = documentsOf(app().node.broker) as SqliteDocumentStore;
		for (const [name, specs] of declared) {
			const native = connection.collection<Doc>(name);
			for (const spec of specs) await native.createIndex(spec.fields, { unique: spec.unique ?? false, sparse: spec.sparse ?? false });
			const docs = await sqlite.collection(name).find({});
			if (docs.length > 0) await native.insertMany(docs);
		}
	});

	afterAll(async () => {
		await connection?.dropDatabase();
		await connection?.close();
	});

	/** Every stage of a winning plan, depth first. */
	function stagesOf(plan: Record<string, unknown>): string[] {
		const children = [plan.inputStage, ...((plan.inputStages as unknown[]) ?? [])].filter((child): child is Record<string, unknown> => typeof child === "object" && child !== null);
		return [String(plan.stage), ...children.flatMap(stagesOf)];
	}

	test("no SORT stage and no COLLSCAN", async () => {
		expect(allShapes.size).toBeGreaterThan(0);
		const found: { query: string; stages: string[] }[] = [];
		for (const [description, query] of allShapes) {
			// An unconditioned unsorted read (findOne of anything) reads its first document, by design.
			if (Object.keys(query.filter).length === 0 && query.options.sort === undefined) continue;
			const native = connection.collection<Doc>(query.collection);
			const cursor = native.find(query.filter as mongoose.mongo.Filter<Doc>, { sort: query.options.sort, limit: query.options.limit, projection: query.options.projection });
			const explained = (await cursor.explain("executionStats")) as { queryPlanner: { winningPlan: Record<string, unknown> } };
			const winning = explained.queryPlanner.winningPlan;
			const stages = stagesOf((winning.queryPlan as Record<string, unknown> | undefined) ?? winning);
			// The deleted branch (its caller's trash) is sorted apart, never scanned.
			const unwanted = isDeletedBranch(query) ? ["COLLSCAN"] : ["SORT", "COLLSCAN"];
			found.push({ query: description, stages: stages.filter(stage => unwanted.includes(stage)) });
		}
		expect(found.filter(f => f.stages.length > 0)).toEqual([]);
	});
});
