import { createHash } from "node:crypto";
import { documentsOf } from "../../shared/runtime/resources.js";
import type { EmbeddedApp } from "../support/embedded-app.js";
import { memoClient } from "../support/memos-client.js";
import { DEFAULT_PASSWORD, signIn, startPopulatedApp, type Population } from "../support/users.js";

/** Personal access tokens (contract 16), over HTTP against the embedded app. */

type App = EmbeddedApp & Population;
type Pat = { name: string; description: string; createdAt: string; expiresAt?: string; lastUsedAt?: string };

let app: App;
const api = memoClient(() => app.baseUrl);
/** The auth service's clock and the gateway's (which keeps what auth said of an access token), which tests move forward; Date.now plus `shift`. */
let shift = 0;

beforeAll(async () => {
	app = await startPopulatedApp(2);
	for (const name of ["auth", "gateway"]) (app.node.broker.getLocalService(name) as unknown as { clock: () => number }).clock = () => Date.now() + shift;
});
afterAll(async () => {
	await app.stop();
});
afterEach(() => {
	shift = 0;
});

const user1 = () => app.users[0]!;
const user2 = () => app.users[1]!;

async function createPat(as = user1(), body: Record<string, unknown> = {}, username = as.user.username): Promise<{ token: string; personalAccessToken: Pat }> {
	const res = await api.request<{ token: string; personalAccessToken: Pat }>("POST", `/users/${username}/personalAccessTokens`, { as, body });
	expect(res.status).toBe(200);
	return res.body;
}

async function listPats(as = user1(), username = as.user.username): Promise<Pat[]> {
	const res = await api.request<{ personalAccessTokens: Pat[] }>("GET", `/users/${username}/personalAccessTokens`, { as });
	expect(res.status).toBe(200);
	return res.body.personalAccessTokens;
}

describe("CreatePersonalAccessToken", () => {
	test("answers the token once; it is stored only as its SHA-256 and never listed", async () => {
		const created = await createPat(user1(), { description: "mcp server", expiresInDays: 30 });
		expect(created.token).toMatch(/^memos_pat_[0-9A-Za-z]{32}$/);
		expect(created.personalAccessToken).toEqual({
			name: expect.stringMatching(/^users\/user1\/personalAccessTokens\/[A-Za-z0-9]+$/),
			description: "mcp server",
			createdAt: expect.stringMatching(/Z$/),
			expiresAt: expect.stringMatching(/Z$/)
		});
		expect(Date.parse(created.personalAccessToken.expiresAt as string) - Date.parse(created.personalAccessToken.createdAt)).toBe(30 * 24 * 3600 * 1000);

		const list = await api.request("GET", "/users/user1/personalAccessTokens", { as: user1() });
		expect(list.text).not.toContain(created.token);
		expect((list.body as { personalAccessTokens: Pat[] }).personalAccessTokens).toContainEqual(created.personalAccessToken);

		const stored = await documentsOf(app.node.broker).collection("auth_personal_access_tokens").find({});
		expect(JSON.stringify(stored)).not.toContain(created.token);
		expect(stored.map(doc => doc.tokenHash)).toContain(createHash("sha256").update(created.token).digest("hex"));
	});

	test("two tokens differ; without expiresInDays a token never expires", async () => {
		const [a, b] = [await createPat(), await createPat()];
		expect(a.token).not.toBe(b.token);
		expect(a.personalAccessToken.expiresAt).toBeUndefined();
	});

	test.each([
		[{ expiresInDays: -1 }],
		[{ expiresInDays: 3651 }],
		[{ expiresInDays: "soon" }],
		[{ expiresInDays: 1.5 }],
		[{ description: "x".repeat(257) }],
		[{ description: 7 }]
	])("refuses %j with INVALID_ARGUMENT", async body => {
		const res = await api.request<{ code: number }>("POST", "/users/user1/personalAccessTokens", { as: user1(), body });
		expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 3 });
	});

	test("only the user themself creates their tokens, admins included; unknown users are NOT_FOUND", async () => {
		for (const as of [app.admin, user2()]) {
			const res = await api.request<{ code: number }>("POST", "/users/user1/personalAccessTokens", { as, body: {} });
			expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: 7 });
		}
		const missing = await api.request<{ code: number }>("POST", "/users/nobody/personalAccessTokens", { as: user1(), body: {} });
		expect(missing.status).toBe(404);
		const anonymous = await api.request<{ code: number }>("POST", "/users/user1/personalAccessTokens", { as: null, body: {} });
		expect(anonymous.status).toBe(401);
	});

	test("at most 50 per user: the 51st is FAILED_PRECONDITION, also when asked for at once", async () => {
		const have = (await listPats(user2())).length;
		const attempts = await Promise.all(
			Array.from({ length: 55 - have }, () => api.request<{ code: number }>("POST", "/users/user2/personalAccessTokens", { as: user2(), body: {} }))
		);
		expect(attempts.filter(r => r.status === 200).length).toBeLessThanOrEqual(50 - have);
		for (const refused of attempts.filter(r => r.status !== 200)) expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 400, code: 9 });
		// Racing creations may refuse each other early, never let a 51st through; topped up one by one, the 51st fails.
		while ((await listPats(user2())).length < 50) await createPat(user2());
		const over = await api.request<{ code: number }>("POST", "/users/user2/personalAccessTokens", { as: user2(), body: {} });
		expect({ status: over.status, code: over.body.code }).toEqual({ status: 400, code: 9 });
		const all = await api.request<{ personalAccessTokens: Pat[]; nextPageToken: string }>("GET", "/users/user2/personalAccessTokens", { as: user2(), query: { pageSize: "100" } });
		expect(all.body.personalAccessTokens).toHaveLength(50);
		for (const pat of all.body.personalAccessTokens) expect((await api.request("DELETE", `/${pat.name}`, { as: user2() })).status).toBe(200);
	});
});

describe("a personal access token authenticates as its user", () => {
	test("on the API and on the file route, as the user's access token would", async () => {
		const { token } = await createPat();
		const me = await api.request<{ user: { username: string } }>("GET", "/auth/me", { as: token });
		expect({ status: me.status, username: me.body.user.username }).toEqual({ status: 200, username: "user1" });
		const memo = await api.create(token, { content: "from a script" });
		expect(memo.status).toBe(200);
		expect(memo.body.creator).toBe("users/user1");

		const attachment = await api.request<{ name: string }>("POST", "/attachments", { as: token, body: { filename: "a.txt", content: Buffer.from("hello").toString("base64") } });
		expect(attachment.status).toBe(200);
		const file = await fetch(`${app.baseUrl}/file/${attachment.body.name}`, { headers: { Authorization: `Bearer ${token}` } });
		expect({ status: file.status, text: await file.text() }).toEqual({ status: 200, text: "hello" });
		const stranger = await fetch(`${app.baseUrl}/file/${attachment.body.name}`, { headers: { Authorization: `Bearer ${(await createPat(user2())).token}` } });
		expect(stranger.status).toBe(403);
	});

	test("keeps working after the access-token lifetime, until it expires", async () => {
		const { token } = await createPat(user1(), { expiresInDays: 1 });
		shift = 16 * 60 * 1000;
		expect((await api.request("GET", "/auth/me", { as: user1() })).status).toBe(401);
		expect((await api.request("GET", "/auth/me", { as: token })).status).toBe(200);
		shift = 24 * 3600 * 1000 + 1000;
		expect((await api.request("GET", "/auth/me", { as: token })).status).toBe(401);
	});

	test("a made-up, deleted or archived user's token is UNAUTHENTICATED", async () => {
		expect((await api.request("GET", "/memos", { as: `memos_pat_${"A".repeat(32)}` })).status).toBe(401);
		const { token, personalAccessToken } = await createPat();
		expect((await api.request("GET", "/memos", { as: token })).status).toBe(200);
		expect((await api.request("DELETE", `/${personalAccessToken.name}`, { as: user1() })).status).toBe(200);
		expect((await api.request("GET", "/memos", { as: token })).status).toBe(401);
		expect((await api.request("DELETE", `/${personalAccessToken.name}`, { as: user1() })).status).toBe(404);

		await api.request("POST", "/users", { as: app.admin, body: { username: "archived1", password: DEFAULT_PASSWORD } });
		const session = await signIn(app.baseUrl, "archived1");
		const archived = await createPat(session);
		expect((await api.request("GET", "/auth/me", { as: archived.token })).status).toBe(200);
		const patched = await api.request("PATCH", "/users/archived1", { as: app.admin, query: { updateMask: "state" }, body: { state: "ARCHIVED" } });
		expect(patched.status).toBe(200);
		expect((await api.request("GET", "/auth/me", { as: archived.token })).status).toBe(401);
	});

	test("lastUsedAt is written on first use and then at most once a minute", async () => {
		const { token, personalAccessToken } = await createPat();
		const lastUsed = async () => (await listPats()).find(p => p.name === personalAccessToken.name)?.lastUsedAt;
		expect(await lastUsed()).toBeUndefined();
		expect((await api.request("GET", "/memos", { as: token })).status).toBe(200);
		const first = await lastUsed();
		expect(first).toMatch(/Z$/);
		shift = 30_000;
		for (let i = 0; i < 5; i++) expect((await api.request("GET", "/memos", { as: token })).status).toBe(200);
		expect(await lastUsed()).toBe(first);
		shift = 61_000;
		expect((await api.request("GET", "/memos", { as: token })).status).toBe(200);
		expect(Date.parse((await lastUsed()) as string) - Date.parse(first as string)).toBeGreaterThanOrEqual(60_000);
	});
});

describe("ListPersonalAccessTokens and DeletePersonalAccessToken", () => {
	test("admins may list and delete another user's tokens; other users may not", async () => {
		const { personalAccessToken } = await createPat(user1(), { description: "for the admin to see" });
		expect(await listPats(app.admin, "user1")).toContainEqual(personalAccessToken);
		const denied = await api.request<{ code: number }>("GET", "/users/user1/personalAccessTokens", { as: user2() });
		expect(denied.status).toBe(403);
		expect((await api.request("DELETE", `/${personalAccessToken.name}`, { as: user2() })).status).toBe(403);
		expect((await api.request("DELETE", `/${personalAccessToken.name}`, { as: app.admin })).status).toBe(200);
		expect(await listPats()).not.toContainEqual(personalAccessToken);
	});

	test("a token of another user cannot be deleted through your own path", async () => {
		const theirs = await createPat(user2());
		const id = theirs.personalAccessToken.name.split("/").pop() as string;
		expect((await api.request("DELETE", `/users/user1/personalAccessTokens/${id}`, { as: user1() })).status).toBe(404);
		expect((await api.request("GET", "/auth/me", { as: theirs.token })).status).toBe(200);
	});

	test("pages newest first", async () => {
		const user = user2();
		const made = [await createPat(user), await createPat(user), await createPat(user)];
		const first = await api.request<{ personalAccessTokens: Pat[]; nextPageToken: string }>("GET", "/users/user2/personalAccessTokens", { as: user, query: { pageSize: "2" } });
		expect(first.body.personalAccessTokens.map(p => p.name)).toEqual([made[2]!.personalAccessToken.name, made[1]!.personalAccessToken.name]);
		expect(first.body.nextPageToken).not.toBe("");
		const second = await api.request<{ personalAccessTokens: Pat[] }>("GET", "/users/user2/personalAccessTokens", { as: user, query: { pageSize: "2", pageToken: first.body.nextPageToken } });
		expect(second.body.personalAccessTokens[0]?.name).toBe(made[0]!.personalAccessToken.name);
	});
});
