import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { DEFAULT_PASSWORD, authHeaders, refreshCookieOf, signIn, signUp } from "../support/users.js";

let app: EmbeddedApp;

beforeAll(async () => {
	app = await startEmbeddedApp();
	await signUp(app.baseUrl, "alice");
	await signUp(app.baseUrl, "bob", "bob password", { email: "bob@example.com" });
});

afterAll(async () => {
	await app.stop();
});

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
	return fetch(`${app.baseUrl}${path}`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
}

function signInWith(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
	return post("/api/v1/auth/signin", body, headers);
}

describe("SignIn with a password (contract 2.3)", () => {
	test("answers the user, an access token with its expiry, and the refresh cookie", async () => {
		const res = await signInWith({ passwordCredentials: { username: "bob", password: "bob password" } });
		expect(res.status).toBe(200);
		const body = (await res.json()) as Record<string, unknown>;
		expect(body.user).toMatchObject({ name: "users/bob", username: "bob", role: "USER", email: "bob@example.com", state: "NORMAL" });
		expect(body.user).not.toHaveProperty("password");
		expect(JSON.stringify(body)).not.toContain("argon2");
		expect(typeof body.accessToken).toBe("string");
		expect(body.accessTokenExpiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
		const expiresIn = Date.parse(body.accessTokenExpiresAt as string) - Date.now();
		expect(expiresIn).toBeGreaterThan(14 * 60_000);
		expect(expiresIn).toBeLessThanOrEqual(15 * 60_000);
		const [cookie] = res.headers.getSetCookie();
		expect(cookie).toMatch(/^memos_refresh=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Lax; Expires=[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT; Max-Age=2592000$/);
	});

	test("the access token carries the claims of 2.1", async () => {
		const session = await signIn(app.baseUrl, "alice");
		const [header, payload] = session.accessToken.split(".").slice(0, 2).map(part => JSON.parse(Buffer.from(part, "base64url").toString()) as Record<string, unknown>);
		expect(header).toMatchObject({ alg: "HS256" });
		expect(payload).toMatchObject({ iss: "memos", aud: "user.access-token", type: "access", username: "alice", role: "ADMIN" });
		expect(typeof payload?.sub).toBe("string");
		expect((payload?.exp as number) - (payload?.iat as number)).toBe(900);
	});

	test("the cookie gets Secure behind TLS", async () => {
		for (const headers of [{ "X-Forwarded-Proto": "https" }, { Forwarded: "for=1.2.3.4;proto=https" }, { Origin: "https://memos.example.com" }] as Record<string, string>[]) {
			const res = await signInWith({ passwordCredentials: { username: "alice", password: DEFAULT_PASSWORD } }, headers);
			expect(res.status).toBe(200);
			expect(res.headers.getSetCookie()[0]).toMatch(/; Secure$/);
		}
	});

	test.each([
		["unknown username", { passwordCredentials: { username: "nobody", password: DEFAULT_PASSWORD } }],
		["wrong password", { passwordCredentials: { username: "alice", password: "wrong" } }],
		["empty password", { passwordCredentials: { username: "alice", password: "" } }],
		["password over 72 bytes", { passwordCredentials: { username: "alice", password: "é".repeat(37) } }]
	])("%s: INVALID_ARGUMENT unmatched username and password", async (_case, body) => {
		const res = await signInWith(body);
		expect(res.status).toBe(400);
		expect(await res.json()).toEqual({ code: 3, message: "unmatched username and password", details: [] });
		expect(refreshCookieOf(res)).toBeUndefined();
	});

	test.each([
		["no credentials", {}],
		["both credential kinds", { passwordCredentials: { username: "alice", password: "x" }, ssoCredentials: { idpName: "identity-providers/x", code: "c" } }],
		["credentials of the wrong type", { passwordCredentials: "alice:secret" }],
		["a username of the wrong type", { passwordCredentials: { username: 5, password: "x" } }]
	])("%s: INVALID_ARGUMENT", async (_case, body) => {
		const res = await signInWith(body);
		expect(res.status).toBe(400);
		expect(((await res.json()) as { code: number }).code).toBe(3);
	});

	test("a body that is not JSON: INVALID_ARGUMENT", async () => {
		const res = await fetch(`${app.baseUrl}/api/v1/auth/signin`, { method: "POST", body: "{nope" });
		expect(res.status).toBe(400);
	});

	test("an invalid access token does not stop SignIn, RefreshToken or SignOut (2.1)", async () => {
		const bad = { Authorization: "Bearer not-a-token" };
		expect((await signInWith({ passwordCredentials: { username: "alice", password: DEFAULT_PASSWORD } }, bad)).status).toBe(200);
		expect((await post("/api/v1/auth/signout", {}, bad)).status).toBe(200);
		expect((await post("/api/v1/auth/refresh", {}, bad)).status).toBe(401);
	});
});

describe("access tokens at the gateway (contract 2.1, 2.2)", () => {
	test("a valid token reaches GetCurrentUser", async () => {
		const session = await signIn(app.baseUrl, "bob", "bob password");
		const res = await fetch(`${app.baseUrl}/api/v1/auth/me`, { headers: authHeaders(session) });
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ user: session.user });
	});

	test("the scheme is case-insensitive", async () => {
		const session = await signIn(app.baseUrl, "bob", "bob password");
		const res = await fetch(`${app.baseUrl}/api/v1/auth/me`, { headers: { Authorization: `bEaReR ${session.accessToken}` } });
		expect(res.status).toBe(200);
	});

	test("anonymous on a signed-in operation: UNAUTHENTICATED with the contract's body", async () => {
		const res = await fetch(`${app.baseUrl}/api/v1/auth/me`);
		expect(res.status).toBe(401);
		expect(await res.json()).toEqual({ code: 16, message: "authentication required", details: [] });
	});

	test("an invalid token fails even operations open to anyone", async () => {
		const res = await fetch(`${app.baseUrl}/api/v1/instance/profile`, { headers: { Authorization: "Bearer nonsense" } });
		expect(res.status).toBe(401);
		expect(((await res.json()) as { code: number }).code).toBe(16);
	});

	test("the token is not accepted in a cookie or the query string", async () => {
		const session = await signIn(app.baseUrl, "bob", "bob password");
		expect((await fetch(`${app.baseUrl}/api/v1/auth/me?access_token=${session.accessToken}`)).status).toBe(401);
		expect((await fetch(`${app.baseUrl}/api/v1/auth/me`, { headers: { Cookie: `memos.access-token=${session.accessToken}` } })).status).toBe(401);
	});
});
