import type { EmbeddedApp } from "../support/embedded-app.js";
import { memoClient, type Memo } from "../support/memos-client.js";
import { startPopulatedApp, type Population } from "../support/users.js";

/** API_COMPAT=upstream (contract 18) beside the default strict mode, over HTTP. */

type App = EmbeddedApp & Population;
let strict: App;
let upstream: App;
const strictApi = memoClient(() => strict.baseUrl);
const upstreamApi = memoClient(() => upstream.baseUrl);

beforeAll(async () => {
	[strict, upstream] = await Promise.all([startPopulatedApp(1), startPopulatedApp(1, { API_COMPAT: "upstream" })]);
});
afterAll(async () => {
	await Promise.all([strict.stop(), upstream.stop()]);
});

test("the instance profile reports the mode", async () => {
	expect((await strictApi.request("GET", "/instance/profile")).body.apiCompat).toBe("strict");
	expect((await upstreamApi.request("GET", "/instance/profile")).body.apiCompat).toBe("upstream");
});

describe("a PATCH without updateMask", () => {
	test("takes its mask from the body's top-level fields, leaving out the name, output-only fields and fields this service lacks", async () => {
		const user = upstream.users[0]!;
		const memo = (await upstreamApi.create(user, { content: "before #old", visibility: "PRIVATE" })).body;
		const res = await upstreamApi.update(user, memo.name, undefined, {
			name: "memos/someone-else",
			content: "after",
			visibility: "PROTECTED",
			tags: ["ignored"],
			snippet: "ignored",
			displayTime: "2020-01-01T00:00:00Z"
		});
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ name: memo.name, content: "after", visibility: "PROTECTED", pinned: false, tags: [], createTime: memo.createTime });
		// Fields the body does not hold keep their values.
		const pinned = await upstreamApi.update(user, memo.name, undefined, { pinned: true });
		expect(pinned.body).toMatchObject({ content: "after", visibility: "PROTECTED", pinned: true });
	});

	test("with nothing to update, or an explicit mask naming an unknown path, it is still INVALID_ARGUMENT; strict mode never infers", async () => {
		const user = upstream.users[0]!;
		const memo = (await upstreamApi.create(user, { content: "x" })).body;
		expect((await upstreamApi.update(user, memo.name, undefined, { name: memo.name, tags: ["t"] })).status).toBe(400);
		expect((await upstreamApi.update(user, memo.name, "frobnicate", { content: "y" })).status).toBe(400);
		expect((await upstreamApi.get(user, memo.name)).body.content).toBe("x");

		const strictUser = strict.users[0]!;
		const strictMemo = (await strictApi.create(strictUser, { content: "x" })).body;
		const refused = await strictApi.update(strictUser, strictMemo.name, undefined, { content: "y" });
		expect({ status: refused.status, code: (refused.body as { code?: number }).code }).toEqual({ status: 400, code: 3 });
	});

	test("works for the other updates too: a shortcut's title alone", async () => {
		const user = upstream.users[0]!;
		const made = await upstreamApi.request<{ name: string }>("POST", "/users/user1/shortcuts", { as: user, body: { title: "t", filter: "pinned" } });
		const res = await upstreamApi.request("PATCH", `/${made.body.name}`, { as: user, body: { name: made.body.name, title: "renamed" } });
		expect(res.body).toEqual({ name: made.body.name, title: "renamed", filter: "pinned" });
	});
});

test("UpdateMemo with state STATE_UNSPECIFIED (by name or number) means NORMAL; strict mode refuses it", async () => {
	const user = upstream.users[0]!;
	for (const state of ["STATE_UNSPECIFIED", 0]) {
		const memo = (await upstreamApi.create(user, { content: `archived ${state}` })).body;
		expect((await upstreamApi.update(user, memo.name, "state", { state: "ARCHIVED" })).body.state).toBe("ARCHIVED");
		const res = await upstreamApi.update(user, memo.name, "state", { state });
		expect({ status: res.status, state: res.body.state }).toEqual({ status: 200, state: "NORMAL" });
	}
	const strictUser = strict.users[0]!;
	const strictMemo = (await strictApi.create(strictUser, { content: "strict" })).body;
	expect((await strictApi.update(strictUser, strictMemo.name, "state", { state: "STATE_UNSPECIFIED" })).status).toBe(400);
});

test("an operation answering Empty answers {} as JSON; strict mode sends a zero-length body", async () => {
	const user = upstream.users[0]!;
	const memo = (await upstreamApi.create(user, { content: "to delete" })).body;
	const res = await fetch(`${upstream.baseUrl}/api/v1/${memo.name}`, { method: "DELETE", headers: { Authorization: `Bearer ${user.accessToken}` } });
	expect(res.status).toBe(200);
	expect(res.headers.get("content-type")).toMatch(/^application\/json/);
	expect(await res.text()).toBe("{}");

	const strictUser = strict.users[0]!;
	const strictMemo = (await strictApi.create(strictUser, { content: "to delete" })).body;
	const strictRes = await strictApi.remove(strictUser, strictMemo.name);
	expect({ status: strictRes.status, text: strictRes.text }).toEqual({ status: 200, text: "" });
	// Failures keep their Status body in both modes.
	expect((await upstreamApi.remove(user, memo.name)).body).toMatchObject({ code: 5 });
});

test("orderBy display_time means create_time; strict mode refuses display_time", async () => {
	const user = upstream.users[0]!;
	const names = new Set<string>();
	for (const content of ["first", "second", "third"]) names.add((await upstreamApi.create(user, { content })).body.name);
	const ours = (memos: Memo[]) => memos.filter(m => names.has(m.name)).map(m => m.name);
	for (const direction of ["asc", "desc"]) {
		const byDisplay = await upstreamApi.list(user, { orderBy: `display_time ${direction}`, pageSize: "1000" });
		const byCreate = await upstreamApi.list(user, { orderBy: `create_time ${direction}`, pageSize: "1000" });
		expect(byDisplay.status).toBe(200);
		expect(ours(byDisplay.body.memos)).toEqual(ours(byCreate.body.memos));
		expect(ours(byDisplay.body.memos)).toHaveLength(3);
	}
	expect((await strictApi.list(strict.users[0]!, { orderBy: "display_time desc" })).status).toBe(400);
});
