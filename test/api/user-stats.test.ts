import type { EmbeddedApp } from "../support/embedded-app.js";
import { memoClient, type Memo } from "../support/memos-client.js";
import { startPopulatedApp, type Population } from "../support/users.js";

/** GetUserStats and ListAllUserStats (contract 16): counted over what the caller can read. */

type App = EmbeddedApp & Population;
type Stats = {
	name: string;
	memoTypeStats: { linkCount: number; codeCount: number; todoCount: number; undoCount: number };
	tagCount: Record<string, number>;
	memoCreatedTimestamps: string[];
	memoUpdatedTimestamps: string[];
	pinnedMemos: string[];
	totalMemoCount: number;
};

let app: App;
const api = memoClient(() => app.baseUrl);
const user1 = () => app.users[0]!;
const user2 = () => app.users[1]!;
const made: Record<string, Memo> = {};

async function create(key: string, content: string, visibility: string): Promise<Memo> {
	const res = await api.create(user1(), { content, visibility });
	expect(res.status).toBe(200);
	made[key] = res.body;
	return res.body;
}

beforeAll(async () => {
	app = await startPopulatedApp(2);
	await create("private", "#work see https://example.com", "PRIVATE");
	await create("public", "#work #idea\n\n```js\nx()\n```\n\n- [ ] open task", "PUBLIC");
	await create("protected", "#idea\n\n- [x] done task", "PROTECTED");
	expect((await api.update(user1(), made.protected!.name, "pinned", { pinned: true })).status).toBe(200);
	await create("archived", "#old", "PUBLIC");
	expect((await api.update(user1(), made.archived!.name, "state", { state: "ARCHIVED" })).status).toBe(200);
	await create("deleted", "#gone", "PUBLIC");
	expect((await api.remove(user1(), made.deleted!.name)).status).toBe(200);
	const comment = await api.request("POST", `/${made.public!.name}/comments`, { as: user1(), body: { content: "#comment", visibility: "PUBLIC" } });
	expect(comment.status).toBe(200);
	expect((await api.create(user2(), { content: "#mine", visibility: "PRIVATE" })).status).toBe(200);
});
afterAll(async () => {
	await app.stop();
});

async function statsOf(as: App["admin"] | null, username: string): Promise<Stats> {
	const res = await api.request<Stats>("GET", `/users/${username}:getStats`, { as });
	expect(res.status).toBe(200);
	return res.body;
}

describe("GetUserStats", () => {
	test("the user themself: NORMAL memos that are not deleted and not comments, with types, tags, times and pins", async () => {
		const stats = await statsOf(user1(), "user1");
		expect(stats).toEqual({
			name: "users/user1/stats",
			memoTypeStats: { linkCount: 1, codeCount: 1, todoCount: 2, undoCount: 1 },
			tagCount: { work: 2, idea: 2 },
			memoCreatedTimestamps: [made.private!.createTime, made.public!.createTime, made.protected!.createTime],
			memoUpdatedTimestamps: expect.any(Array),
			pinnedMemos: [made.protected!.name],
			totalMemoCount: 3
		});
		expect(stats.memoUpdatedTimestamps).toHaveLength(3);
	});

	test("another user and an admin count only what they can read (no PRIVATE)", async () => {
		for (const as of [user2(), app.admin]) {
			const stats = await statsOf(as, "user1");
			expect(stats.totalMemoCount).toBe(2);
			expect(stats.tagCount).toEqual({ work: 1, idea: 2 });
			expect(stats.memoTypeStats).toEqual({ linkCount: 0, codeCount: 1, todoCount: 2, undoCount: 1 });
		}
	});

	test("anonymous callers: UNAUTHENTICATED on a private instance, PUBLIC memos on a public one", async () => {
		expect((await api.request("GET", "/users/user1:getStats", { as: null })).status).toBe(401);
		const access = await api.request("PATCH", "/instance/settings/ACCESS", { as: app.admin, body: { accessSetting: { accessMode: "INSTANCE_ACCESS_MODE_PUBLIC" } } });
		expect(access.status).toBe(200);
		try {
			const stats = await statsOf(null, "user1");
			expect(stats.totalMemoCount).toBe(1);
			expect(stats.pinnedMemos).toEqual([]);
		} finally {
			await api.request("PATCH", "/instance/settings/ACCESS", { as: app.admin, body: { accessSetting: { accessMode: "INSTANCE_ACCESS_MODE_PRIVATE" } } });
		}
	});

	test("an unknown user is NOT_FOUND; an unknown verb is not a username", async () => {
		const missing = await api.request<{ code: number; message: string }>("GET", "/users/nobody:getStats", { as: user1() });
		expect({ status: missing.status, code: missing.body.code, message: missing.body.message }).toEqual({ status: 404, code: 5, message: "user nobody not found" });
		const unknown = await api.request<{ message: string }>("GET", "/users/user1:getStatistics", { as: user1() });
		expect({ status: unknown.status, message: unknown.body.message }).toEqual({ status: 404, message: "unknown operation" });
	});
});

describe("ListAllUserStats", () => {
	test("one entry per user with readable memos, each as GetUserStats would answer the same caller", async () => {
		const res = await api.request<{ stats: Stats[] }>("GET", "/users:stats", { as: user2() });
		expect(res.status).toBe(200);
		expect(res.body.stats.map(s => s.name)).toEqual(["users/user1/stats", "users/user2/stats"]);
		expect(res.body.stats[0]).toEqual(await statsOf(user2(), "user1"));
		expect(res.body.stats[1]).toEqual(await statsOf(user2(), "user2"));
		const own = await api.request<{ stats: Stats[] }>("GET", "/users:stats", { as: user1() });
		expect(own.body.stats.find(s => s.name === "users/user1/stats")?.totalMemoCount).toBe(3);
		expect(own.body.stats.find(s => s.name === "users/user2/stats")).toBeUndefined();
	});

	test("a filter it cannot apply is refused, not ignored", async () => {
		const res = await api.request<{ code: number }>("GET", "/users:stats", { as: user2(), query: { filter: "pinned" } });
		expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 3 });
	});
});
