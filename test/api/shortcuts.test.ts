import type { EmbeddedApp } from "../support/embedded-app.js";
import { memoClient } from "../support/memos-client.js";
import { signIn, signUp, startPopulatedApp, type Population } from "../support/users.js";

/** ShortcutService (contract 16, upstream v0.30.0 shapes), over HTTP. */

type App = EmbeddedApp & Population;
interface Shortcut {
	name: string;
	title: string;
	filter: string;
}
let app: App;
const api = memoClient(() => app.baseUrl);
const user1 = () => app.users[0]!;
const user2 = () => app.users[1]!;

beforeAll(async () => {
	app = await startPopulatedApp(3);
});
afterAll(async () => {
	await app.stop();
});

const create = (body: unknown, as = user1(), query: Record<string, string> = {}) => api.request<Shortcut & { code: number }>("POST", "/users/user1/shortcuts", { as, body, query });

describe("shortcuts", () => {
	test("create, get, list, update and delete; the saved filter selects what ListMemos selects with it", async () => {
		await api.create(user1(), { content: "#work plan", visibility: "PRIVATE" });
		await api.create(user1(), { content: "#home chores", visibility: "PRIVATE" });
		const made = await create({ title: "Work", filter: '"work" in tags' });
		expect(made.status).toBe(200);
		expect(made.body).toEqual({ name: expect.stringMatching(/^users\/user1\/shortcuts\/[A-Za-z0-9]{22}$/), title: "Work", filter: '"work" in tags' });
		const second = await create({ title: "Everything", filter: "" });
		expect(second.status).toBe(200);

		expect((await api.request("GET", `/${made.body.name}`, { as: user1() })).body).toEqual(made.body);
		const list = await api.request<{ shortcuts: Shortcut[]; nextPageToken: string }>("GET", "/users/user1/shortcuts", { as: user1() });
		expect(list.body).toEqual({ shortcuts: [made.body, second.body], nextPageToken: "" });

		const memos = await api.list(user1(), { filter: made.body.filter });
		expect(memos.body.memos.map(m => m.content)).toEqual(["#work plan"]);

		const updated = await api.request<Shortcut>("PATCH", `/${made.body.name}`, { as: user1(), query: { updateMask: "filter" }, body: { title: "ignored", filter: '"home" in tags' } });
		expect(updated.status).toBe(200);
		expect(updated.body).toEqual({ ...made.body, filter: '"home" in tags' });
		expect((await api.request("GET", `/${made.body.name}`, { as: user1() })).body).toEqual(updated.body);

		const removed = await api.request("DELETE", `/${made.body.name}`, { as: user1() });
		expect({ status: removed.status, text: removed.text }).toEqual({ status: 200, text: "" });
		expect((await api.request<{ code: number }>("GET", `/${made.body.name}`, { as: user1() })).body.code).toBe(5);
		expect((await api.request<{ code: number }>("DELETE", `/${made.body.name}`, { as: user1() })).status).toBe(404);
	});

	test("a filter ListMemos refuses, an empty or too long title, or a missing mask is INVALID_ARGUMENT; nothing is saved", async () => {
		const before = await api.request<{ shortcuts: Shortcut[] }>("GET", "/users/user1/shortcuts", { as: user1() });
		for (const body of [
			{ title: "bad", filter: "content ==" },
			{ title: "bad", filter: "unknown_field == 1" },
			{ title: "bad", filter: 'visibility == "EVERYONE"' },
			{ title: "", filter: "pinned" },
			{ title: "t".repeat(257), filter: "pinned" },
			{ title: 5, filter: "pinned" }
		]) {
			const res = await create(body);
			expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 400, code: 3 });
		}
		expect((await api.request("GET", "/users/user1/shortcuts", { as: user1() })).body).toEqual(before.body);

		const made = await create({ title: "ok", filter: "pinned" });
		const noMask = await api.request<{ code: number }>("PATCH", `/${made.body.name}`, { as: user1(), body: { title: "new" } });
		expect(noMask.status).toBe(400);
		const badFilter = await api.request<{ code: number }>("PATCH", `/${made.body.name}`, { as: user1(), query: { updateMask: "filter" }, body: { filter: "tags == 1" } });
		expect(badFilter.status).toBe(400);
		expect((await api.request("GET", `/${made.body.name}`, { as: user1() })).body).toEqual(made.body);
	});

	test("validateOnly checks the request and saves nothing", async () => {
		const before = await api.request<{ shortcuts: Shortcut[] }>("GET", "/users/user1/shortcuts", { as: user1() });
		const checked = await create({ title: "dry run", filter: "has_link" }, user1(), { validateOnly: "true" });
		expect(checked.status).toBe(200);
		expect(checked.body.title).toBe("dry run");
		expect((await create({ title: "dry run", filter: "has_link ==" }, user1(), { validateOnly: "true" })).status).toBe(400);
		expect((await api.request("GET", "/users/user1/shortcuts", { as: user1() })).body).toEqual(before.body);
	});

	test("only the user themself: another user and an admin get PERMISSION_DENIED, anonymous callers UNAUTHENTICATED, an unknown user NOT_FOUND", async () => {
		const made = await create({ title: "mine", filter: "" });
		for (const as of [user2(), app.admin]) {
			expect((await api.request("GET", "/users/user1/shortcuts", { as })).status).toBe(403);
			expect((await api.request("GET", `/${made.body.name}`, { as })).status).toBe(403);
			expect((await create({ title: "theirs", filter: "" }, as)).status).toBe(403);
			expect((await api.request("PATCH", `/${made.body.name}`, { as, query: { updateMask: "title" }, body: { title: "x" } })).status).toBe(403);
			expect((await api.request("DELETE", `/${made.body.name}`, { as })).status).toBe(403);
		}
		expect((await api.request("GET", "/users/user1/shortcuts", { as: null })).status).toBe(401);
		expect((await api.request("GET", "/users/nobody/shortcuts", { as: user1() })).status).toBe(404);
		// Another user's shortcut id under one's own name is simply not there.
		const theirs = await api.request<Shortcut>("POST", "/users/user2/shortcuts", { as: user2(), body: { title: "theirs", filter: "" } });
		const id = theirs.body.name.split("/").at(-1)!;
		expect((await api.request("GET", `/users/user1/shortcuts/${id}`, { as: user1() })).status).toBe(404);
		expect((await api.request("GET", `/users/user1/shortcuts/${made.body.name.split("/").at(-1)!}`, { as: user1() })).body).toEqual(made.body);
	});

	test("the list pages in creation order with tokens bound to the user", async () => {
		const user = app.users[2]!;
		const base = `/users/${user.user.username}/shortcuts`;
		const existing = (await api.request<{ shortcuts: Shortcut[] }>("GET", base, { as: user })).body.shortcuts;
		for (let i = 0; i < 3; i++) await api.request("POST", base, { as: user, body: { title: `s${i}`, filter: "" } });
		const titles: string[] = [];
		let pageToken = "";
		do {
			const page = await api.request<{ shortcuts: Shortcut[]; nextPageToken: string }>("GET", base, { as: user, query: { pageSize: "2", ...(pageToken ? { pageToken } : {}) } });
			expect(page.status).toBe(200);
			titles.push(...page.body.shortcuts.map(s => s.title));
			pageToken = page.body.nextPageToken;
		} while (pageToken !== "");
		expect(titles).toEqual([...existing.map(s => s.title), "s0", "s1", "s2"]);
		const first = await api.request<{ nextPageToken: string }>("GET", base, { as: user, query: { pageSize: "1" } });
		const foreign = await api.request("GET", "/users/user1/shortcuts", { as: user1(), query: { pageToken: first.body.nextPageToken } });
		expect(foreign.status).toBe(400);
	});

	test("a deleted user's shortcuts go with them: a new user of the same name has none", async () => {
		const made = await create({ title: "gone soon", filter: "" });
		expect(made.status).toBe(200);
		expect((await api.request("DELETE", "/users/user1", { as: app.admin })).status).toBe(200);
		expect((await api.request("GET", "/users/user1/shortcuts", { as: app.admin })).status).toBe(404);
		await signUp(app.baseUrl, "user1", undefined, { accessToken: app.admin.accessToken });
		const again = await signIn(app.baseUrl, "user1");
		expect((await api.request("GET", "/users/user1/shortcuts", { as: again })).body).toEqual({ shortcuts: [], nextPageToken: "" });
		expect((await api.request("GET", `/${made.body.name}`, { as: again })).status).toBe(404);
	});
});
