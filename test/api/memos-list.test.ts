import { encodePageToken } from "../../shared/paging/page-token.js";
import type { Session } from "../support/users.js";
import { listAll } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

const { api, admin, users: [alice, bob, carol] } = usePopulatedApp(3);

function expectError(res: { status: number; body: unknown }, status: number, code: number): void {
	expect({ status: res.status, code: (res.body as { code?: number } | undefined)?.code }).toEqual({ status, code });
	expect(res.body).toMatchObject({ details: [] });
}

async function create(as: Session, memoId: string, memo: Record<string, unknown>): Promise<void> {
	const res = await api.create(as, memo, memoId);
	if (res.status !== 200) throw new Error(`CreateMemo ${memoId} answered ${res.status}: ${res.text}`);
}

/** Memo ids of one page, as a set-like sorted list when order does not matter. */
async function ids(as: Session | null, query: Record<string, string> = {}): Promise<string[]> {
	const res = await api.list(as, query);
	if (res.status !== 200) throw new Error(`ListMemos answered ${res.status}: ${res.text}`);
	return res.body.memos.map(m => m.name.slice("memos/".length));
}

const sorted = (list: string[]) => [...list].sort();

// Alice and Bob's memos; each one's createTime is a day apart, oldest first.
const DAY = 24 * 60 * 60 * 1000;
const at = (day: number) => new Date(Date.UTC(2025, 0, 1) + day * DAY).toISOString();

beforeAll(async () => {
	await create(alice(), "a-private", { content: "alpha private #work", visibility: "PRIVATE", createTime: at(1) });
	await create(alice(), "a-protected", { content: "alpha protected #work/q1", visibility: "PROTECTED", createTime: at(2), pinned: true });
	await create(alice(), "a-public", { content: "alpha public\n- [ ] task", visibility: "PUBLIC", createTime: at(3) });
	await create(alice(), "a-archived", { content: "alpha archived", visibility: "PUBLIC", createTime: at(4) });
	await create(alice(), "a-deleted", { content: "alpha deleted", visibility: "PUBLIC", createTime: at(5) });
	await create(alice(), "a-private-deleted", { content: "alpha private deleted", visibility: "PRIVATE", createTime: at(6) });
	await create(bob(), "b-private", { content: "bravo private #work", visibility: "PRIVATE", createTime: at(7) });
	await create(bob(), "b-public", { content: "bravo public `code`", visibility: "PUBLIC", createTime: at(8), pinned: true });
	await create(bob(), "b-archived", { content: "bravo archived", visibility: "PROTECTED", createTime: at(9) });
	for (const [as, id] of [[alice(), "a-archived"], [bob(), "b-archived"]] as const) {
		expect((await api.update(as, `memos/${id}`, "state", { state: "ARCHIVED" })).status).toBe(200);
	}
	for (const id of ["a-deleted", "a-private-deleted"]) expect((await api.remove(alice(), `memos/${id}`)).status).toBe(200);
});

// Carol keeps her memos PRIVATE so they only show up in her own lists.
const notCarol = 'creator != "users/user3"';

describe("ListMemos candidates (contract 7.2)", () => {
	test("a user lists their own memos and others' PUBLIC and PROTECTED ones, newest first", async () => {
		expect(await ids(alice(), { filter: notCarol })).toEqual(["b-public", "a-public", "a-protected", "a-private"]);
		expect(await ids(bob(), { filter: notCarol })).toEqual(["b-public", "b-private", "a-public", "a-protected"]);
	});

	test("a creator's new username shows in the lists that follow", async () => {
		const creatorOf = async (username: string) => {
			const res = await api.list(bob(), { filter: `creator == "users/${username}" && visibility == "PUBLIC"` });
			return (res.body.memos as { name: string; creator: string }[]).map(memo => [memo.name, memo.creator]);
		};
		const rename = async (from: string, to: string) => {
			const res = await api.request("PATCH", `/users/${from}`, { as: alice(), query: { updateMask: "username" }, body: { username: to } });
			expect(res.status).toBe(200);
		};
		expect(await creatorOf("user1")).toEqual([["memos/a-public", "users/user1"]]);
		await rename("user1", "user1-renamed");
		try {
			expect(await creatorOf("user1-renamed")).toEqual([["memos/a-public", "users/user1-renamed"]]);
		} finally {
			await rename("user1-renamed", "user1");
		}
		expect(await creatorOf("user1")).toEqual([["memos/a-public", "users/user1"]]);
	});

	test("an instance admin gains no access to others' PRIVATE memos", async () => {
		expect(await ids(admin(), { filter: notCarol })).toEqual(["b-public", "a-public", "a-protected"]);
	});

	test("list items are full Memo messages with creator names", async () => {
		const res = await api.list(bob(), { filter: 'creator == "users/user1" && visibility == "PUBLIC"' });
		expect(res.body).toEqual({ memos: [expect.objectContaining({ name: "memos/a-public", creator: "users/user1", tags: [] })], nextPageToken: "" });
		expect(res.body.memos[0]).toMatchObject({ property: { hasTaskList: true, hasIncompleteTasks: true }, space: null, attachments: [] });
		expect(res.body.memos[0]).not.toHaveProperty("deleteTime");
	});

	test("state=ARCHIVED lists only the caller's own archived memos", async () => {
		expect(await ids(alice(), { state: "ARCHIVED" })).toEqual(["a-archived"]);
		expect(await ids(bob(), { state: "ARCHIVED" })).toEqual(["b-archived"]);
		expect(await ids(admin(), { state: "ARCHIVED" })).toEqual([]);
		expect(await ids(bob(), { state: "2" })).toEqual(["b-archived"]);
		expect(await ids(alice(), { state: "NORMAL", filter: notCarol })).toEqual(await ids(alice(), { state: "STATE_UNSPECIFIED", filter: notCarol }));
	});

	test("showDeleted adds the caller's own soft-deleted memos, with deleteTime (rule 3)", async () => {
		const res = await api.list(alice(), { showDeleted: "true", filter: notCarol });
		expect(res.body.memos.map(m => m.name)).toEqual([
			"memos/b-public",
			"memos/a-private-deleted",
			"memos/a-deleted",
			"memos/a-public",
			"memos/a-protected",
			"memos/a-private"
		]);
		for (const memo of res.body.memos) {
			if (memo.name.endsWith("deleted")) expect(memo.deleteTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
			else expect(memo).not.toHaveProperty("deleteTime");
		}
		expect(await ids(alice(), { showDeleted: "true", state: "ARCHIVED" })).toEqual(["a-archived"]);
	});

	test("showDeleted never shows anyone else's deleted memos, PUBLIC ones and instance ADMINs included (rule 3)", async () => {
		const listable = [
			[bob(), ["b-public", "b-private", "a-public", "a-protected"]],
			[admin(), ["b-public", "a-public", "a-protected"]]
		] as const;
		for (const [caller, expected] of listable) {
			const res = await api.list(caller, { showDeleted: "1", filter: notCarol });
			expect(sorted(res.body.memos.map(m => m.name.slice("memos/".length)))).toEqual(sorted([...expected]));
			expect(res.text).not.toContain("alpha deleted");
			expect(res.text).not.toContain("deleteTime");
		}
		expect(await ids(bob(), { showDeleted: "true", filter: 'content == "alpha deleted"' })).toEqual([]);
	});

	test("anonymous callers: UNAUTHENTICATED on a private instance; PUBLIC memos only on a public one; no archived list", async () => {
		expectError(await api.list(null), 401, 16);
		expectError(await api.list(null, { filter: "((" }), 401, 16);
		await api.setAccessMode(admin(), "PUBLIC");
		try {
			expect(await ids(null)).toEqual(["b-public", "a-public"]);
			expect(await ids(null, { state: "ARCHIVED" })).toEqual([]);
			expect(await ids(null, { showDeleted: "true" })).toEqual(["b-public", "a-public"]);
			expect(await ids(null, { filter: 'creator == "users/user1"' })).toEqual(["a-public"]);
		} finally {
			await api.setAccessMode(admin(), "PRIVATE");
		}
	});
});

describe("ListMemos filter and orderBy (contract 6)", () => {
	test.each([
		['creator == "users/user2"', ["b-public", "b-private"]],
		['creator in ["users/user1", "users/nobody"]', ["a-public", "a-protected"]],
		['creator == "users/nobody"', []],
		['"work" in tags', ["b-private", "a-protected"]],
		['tags.exists(t, t.startsWith("work/"))', ["a-protected"]],
		["pinned", ["b-public", "a-protected"]],
		['visibility == "PRIVATE"', ["b-private"]],
		['content.contains("BRAVO")', ["b-public", "b-private"]],
		["has_code || has_task_list", ["b-public", "a-public"]],
		[`created_ts >= timestamp("${at(7)}") && created_ts < ${Date.parse(at(8)) / 1000}`, ["b-private"]],
		['created_ts > now - duration("24h")', []],
		["  ", ["b-public", "b-private", "a-public", "a-protected"]]
	])("filter %j", async (filter, expected) => {
		expect(await ids(bob(), { filter: filter.trim() === "" ? filter : `${filter} && ${notCarol}` })).toEqual(expected);
	});

	test("orderBy: fields, directions, and pinned first", async () => {
		expect(await ids(bob(), { filter: notCarol, orderBy: "create_time asc" })).toEqual(["a-protected", "a-public", "b-private", "b-public"]);
		expect(await ids(bob(), { filter: notCarol, orderBy: "name" })).toEqual(["b-public", "b-private", "a-public", "a-protected"]);
		expect(await ids(bob(), { filter: notCarol, orderBy: "name asc" })).toEqual(["a-protected", "a-public", "b-private", "b-public"]);
		expect(await ids(bob(), { filter: notCarol, orderBy: "pinned desc, create_time asc" })).toEqual(["a-protected", "b-public", "a-public", "b-private"]);
	});

	test("memos created within one millisecond keep creation order (seq breaks ties)", async () => {
		const same = "2024-06-01T00:00:00.000Z";
		for (const id of ["tie-1", "tie-2", "tie-3", "tie-4"]) await create(carol(), id, { content: "tie", createTime: same });
		const filter = 'content == "tie"';
		expect(await ids(carol(), { filter })).toEqual(["tie-4", "tie-3", "tie-2", "tie-1"]);
		expect(await ids(carol(), { filter, orderBy: "create_time asc" })).toEqual(["tie-1", "tie-2", "tie-3", "tie-4"]);
		expect((await listAll(api, carol(), { filter, pageSize: "1" })).names).toEqual(["tie-4", "tie-3", "tie-2", "tie-1"].map(id => `memos/${id}`));
	});
});

describe("ListMemos pagination (contract 1.7)", () => {
	const filter = 'content.startsWith("page ")';

	beforeAll(async () => {
		for (let i = 1; i <= 7; i++) await create(carol(), `page-${i}`, { content: `page ${i}`, createTime: at(20 + i) });
	});

	test("pages follow one another without gaps or repeats; the last one has no token", async () => {
		const all = await listAll(api, carol(), { filter, pageSize: "3" });
		expect(all.pages).toEqual([3, 3, 1]);
		expect(all.names).toEqual([7, 6, 5, 4, 3, 2, 1].map(i => `memos/page-${i}`));
	});

	test("looking ahead: when the last page is full, it carries no token", async () => {
		const first = await api.list(carol(), { filter: `${filter} && created_ts > timestamp("${at(21)}")`, pageSize: "3" });
		expect(first.body.memos).toHaveLength(3);
		expect(first.body.nextPageToken).not.toBe("");
		const second = await api.list(carol(), { filter: `${filter} && created_ts > timestamp("${at(21)}")`, pageSize: "3", pageToken: first.body.nextPageToken });
		expect(second.body.memos).toHaveLength(3);
		expect(second.body.nextPageToken).toBe("");
		const empty = await api.list(carol(), { filter: 'content == "nothing at all"' });
		expect(empty.body).toEqual({ memos: [], nextPageToken: "" });
	});

	test("pageSize may change between pages; 0, negative and absent mean 50", async () => {
		const first = await api.list(carol(), { filter, pageSize: "2" });
		const rest = await api.list(carol(), { filter, pageSize: "0", pageToken: first.body.nextPageToken });
		expect([...first.body.memos, ...rest.body.memos].map(m => m.name)).toEqual([7, 6, 5, 4, 3, 2, 1].map(i => `memos/page-${i}`));
		expect(rest.body.nextPageToken).toBe("");
		expect((await api.list(carol(), { filter, pageSize: "-4" })).body.memos).toHaveLength(7);
	});

	test("a memo inserted between pages neither repeats nor shifts the next page", async () => {
		const first = await api.list(carol(), { filter, pageSize: "3" });
		await create(carol(), "page-new", { content: "page new", createTime: at(40) });
		const second = await api.list(carol(), { filter, pageSize: "3", pageToken: first.body.nextPageToken });
		expect(second.body.memos.map(m => m.name)).toEqual(["memos/page-4", "memos/page-3", "memos/page-2"]);
		expect((await api.remove(carol(), "memos/page-new", "true")).status).toBe(200);
	});

	test("a token is bound to its filter, orderBy, state, showDeleted and caller", async () => {
		const token = (await api.list(carol(), { filter, pageSize: "2" })).body.nextPageToken;
		expect(token).not.toBe("");
		expectError(await api.list(carol(), { filter: `${filter} && true`, pageToken: token }), 400, 3);
		expectError(await api.list(carol(), { filter, orderBy: "create_time asc", pageToken: token }), 400, 3);
		expectError(await api.list(carol(), { filter, state: "ARCHIVED", pageToken: token }), 400, 3);
		expectError(await api.list(carol(), { filter, showDeleted: "true", pageToken: token }), 400, 3);
		expectError(await api.list(bob(), { filter, pageToken: token }), 400, 3);
		expect((await api.list(carol(), { filter, pageToken: token })).status).toBe(200);
	});

	test("forged and truncated tokens are INVALID_ARGUMENT", async () => {
		const token = (await api.list(carol(), { filter, pageSize: "2" })).body.nextPageToken;
		// Tokens bound exactly as the service binds them, so that only the position is wrong.
		const callerId = (JSON.parse(Buffer.from(carol().accessToken.split(".")[1] ?? "", "base64url").toString()) as { sub: string }).sub;
		const bound = { filter, orderBy: "", state: "NORMAL", showDeleted: false, caller: callerId };
		const forged = [
			token.slice(0, -3),
			token.slice(5),
			`${token}A`,
			"not a token!",
			"e30",
			Buffer.from('{"o":"ListMemos","f":"x","p":{}}').toString("base64url"),
			encodePageToken("ListMemoComments", bound, { createTime: 1, seq: 1 }),
			encodePageToken("ListMemos", bound, { createTime: "yesterday", seq: 1 }),
			encodePageToken("ListMemos", bound, [1, 2])
		];
		for (const pageToken of forged) expectError(await api.list(carol(), { filter, pageToken }), 400, 3);
	});
});

describe("ListMemos bad input: 400 code 3, never 500 (issue 4)", () => {
	test.each([
		["a malformed filter", "content =="],
		["an unclosed parenthesis", "(pinned"],
		["an unknown field", "foo == 1"],
		["a non-boolean top level", "content"],
		["a wrong literal type (bool)", 'pinned == "yes"'],
		["a wrong literal type (enum)", 'visibility == "SECRET"'],
		["a wrong literal type (time)", 'created_ts > "yesterday"'],
		["an unsupported macro", 'content.matches("a.*")'],
		["a ternary", "pinned ? true : false"],
		["10,000 opening parentheses", "(".repeat(10000)],
		["deep but short nesting", `${"(".repeat(4000)}pinned${")".repeat(4000)}`],
		["10,000 negations", `${"!".repeat(10000)}pinned`],
		["a filter over 8192 bytes", Array.from({ length: 1200 }, () => "pinned").join("||")]
	])("%s", async (_what, filter) => {
		expectError(await api.list(alice(), { filter }), 400, 3);
	});

	test.each([
		["an unknown orderBy field", { orderBy: "title desc" }],
		["a bad direction", { orderBy: "create_time up" }],
		["a repeated field", { orderBy: "create_time, create_time asc" }],
		["an empty term", { orderBy: "create_time desc," }],
		["a pageSize that is not a number", { pageSize: "ten" }],
		["an unknown state", { state: "DELETED" }],
		["a bad showDeleted", { showDeleted: "yes please" }]
	])("%s", async (_what, query) => {
		expectError(await api.list(alice(), query), 400, 3);
	});

	test("repeated query parameters are INVALID_ARGUMENT", async () => {
		expectError(await api.request("GET", "/memos?filter=pinned&filter=pinned", { as: alice() }), 400, 3);
	});
});

describe("ListMemos compound orders, page by page (issue 21: branches split on pinned)", () => {
	const filter = 'content.startsWith("compound ")';
	// id, create day, update day, pinned; in creation order (the sequence). Ties on both times
	// (c1, c6; c9, c8, c7 whose names go against their sequence) and on one.
	const memos: [string, number, number, boolean][] = [
		["c1", 1, 5, false],
		["c2", 1, 3, true],
		["c3", 2, 3, false],
		["c4", 2, 3, true],
		["c5", 3, 1, false],
		["c6", 1, 5, false],
		["c9", 2, 4, false],
		["c8", 2, 4, false],
		["c7", 2, 4, false]
	];

	beforeAll(async () => {
		for (const [id, created, updated, pinned] of memos) await create(carol(), id, { content: `compound ${id}`, createTime: at(created), updateTime: at(updated), pinned });
	});

	/** The order contract 6.4 gives, worked out here: the terms, then the sequence in the last time key's direction (none after name). */
	function expected(orderBy: string): string[] {
		const terms = orderBy.split(",").map(term => term.trim().split(/\s+/)).map(([field, dir = "desc"]) => ({ field, sign: dir === "asc" ? 1 : -1 }));
		const value = (memo: (typeof memos)[number], field: string) => ({ pinned: Number(memo[3]), create_time: memo[1], update_time: memo[2], name: memo[0] })[field] as number | string;
		const times = terms.filter(t => t.field.endsWith("_time"));
		const seqSign = terms.some(t => t.field === "name") ? 0 : (times.at(-1)?.sign ?? -1);
		const order = memos.map((memo, seq) => ({ memo, seq }));
		order.sort((a, b) => {
			for (const { field, sign } of terms) {
				const [x, y] = [value(a.memo, field), value(b.memo, field)];
				if (x !== y) return (x < y ? -1 : 1) * sign;
			}
			return (a.seq - b.seq) * seqSign;
		});
		return order.map(({ memo }) => `memos/${memo[0]}`);
	}

	test.each([
		"create_time desc, update_time asc",
		"update_time desc, create_time desc",
		"create_time asc, name desc",
		"update_time asc, pinned desc",
		"pinned asc, update_time desc, create_time asc",
		"create_time desc, update_time desc, name asc",
		"create_time asc, update_time asc, name asc",
		"create_time desc, update_time asc, name desc",
		"update_time asc, create_time desc, name asc",
		"update_time desc, create_time desc, name desc",
		"pinned desc, create_time asc, update_time desc, name asc",
		"update_time asc, create_time asc, pinned desc, name desc"
	])("orderBy %j: every page size gives the contract's order", async orderBy => {
		for (const pageSize of ["1", "2", "3", "4"]) expect((await listAll(api, carol(), { filter, orderBy, pageSize })).names).toEqual(expected(orderBy));
	});
});
