import { identityProviderBody, startOAuth2Provider, type OAuth2Provider } from "../support/oauth2-provider.js";
import { authHeaders, refreshCookieOf, startPopulatedApp, type Population } from "../support/users.js";
import type { EmbeddedApp } from "../support/embedded-app.js";

type App = EmbeddedApp & Population;

let app: App;
let provider: OAuth2Provider;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function api(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: Record<string, unknown>; res: Response }> {
	const headers = token === undefined ? { "Content-Type": "application/json" } : authHeaders(token);
	const res = await fetch(`${app.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
	const text = await res.text();
	return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>), res };
}

async function createProvider(id: string, extra: Record<string, unknown> = {}): Promise<void> {
	const res = await api("POST", `/api/v1/identity-providers?identityProviderId=${id}`, { ...identityProviderBody(provider, id), ...extra }, app.admin.accessToken);
	expect(res.status).toBe(200);
}

function sso(code: string, idp = "identity-providers/corp", extra: Record<string, unknown> = {}) {
	return api("POST", "/api/v1/auth/signin", { ssoCredentials: { idpName: idp, code, redirectUri: "https://memos.example.com/auth/callback", ...extra } });
}

async function setGeneral(fields: Record<string, boolean>): Promise<void> {
	expect((await api("PATCH", "/api/v1/instance/settings/GENERAL", { generalSetting: fields }, app.admin.accessToken)).status).toBe(200);
}

beforeAll(async () => {
	provider = await startOAuth2Provider();
	app = await startPopulatedApp(0);
	await createProvider("corp");
	await createProvider("filtered", { identifierFilter: "^corp-" });
	provider.users.set("alice-code", { sub: "alice", name: "Alice Liddell", email: "alice@corp.example", picture: "https://corp.example/alice.png" });
	provider.users.set("admin-code", { sub: "admin", name: "Not the admin" });
	provider.users.set("numeric-code", { sub: 12345 });
	provider.users.set("odd-code", { sub: "odd id!", name: 7, email: "not an e-mail" });
	provider.users.set("nosub-code", { name: "Nobody" });
	provider.users.set("corp-code", { sub: "corp-bob" });
	provider.users.set("late-code", { sub: "latecomer" });
});

afterAll(async () => {
	await app.stop();
	await provider.stop();
});

beforeEach(() => {
	provider.tokenMode = "json";
	provider.userInfoMode = "ok";
	provider.tokenRequests.length = 0;
});

describe("SignIn with SSO credentials (contract 2.3)", () => {
	test("the code exchange is a form POST with the client credentials and the PKCE verifier", async () => {
		const res = await sso("alice-code", "identity-providers/corp", { codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk" });
		expect(res.status).toBe(200);
		expect(provider.tokenRequests).toEqual([{
			contentType: "application/x-www-form-urlencoded",
			accept: "application/json",
			form: {
				grant_type: "authorization_code",
				code: "alice-code",
				redirect_uri: "https://memos.example.com/auth/callback",
				client_id: "memos-client",
				client_secret: "s3cret-of-memos",
				code_verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
			}
		}]);
	});

	test("a first sign-in creates a USER from the mapped claims and signs them in; the next finds the same user", async () => {
		const first = await sso("alice-code");
		expect(first.status).toBe(200);
		expect(first.body.user).toMatchObject({ username: "alice", role: "USER", displayName: "Alice Liddell", email: "alice@corp.example", avatarUrl: "https://corp.example/alice.png" });
		expect(refreshCookieOf(first.res)).toBeDefined();
		expect((await api("GET", "/api/v1/auth/me", undefined, first.body.accessToken as string)).status).toBe(200);
		expect(provider.tokenRequests[0]?.form).not.toHaveProperty("code_verifier");
		const again = await sso("alice-code");
		expect((again.body.user as { name: string }).name).toBe("users/alice");
		const list = await api("GET", `/api/v1/users?filter=${encodeURIComponent('username == "alice"')}`, undefined, app.admin.accessToken);
		expect(list.body.users).toHaveLength(1);
	});

	test("a form-encoded token answer is accepted", async () => {
		provider.tokenMode = "form";
		expect((await sso("alice-code")).status).toBe(200);
	});

	test("an identifier that is taken or not a valid username gets a UUID username", async () => {
		const taken = await sso("admin-code");
		expect(taken.status).toBe(200);
		expect((taken.body.user as { username: string; displayName: string }).username).toMatch(UUID_V4);
		expect((taken.body.user as { role: string }).role).toBe("USER");
		const odd = await sso("odd-code");
		expect(odd.status).toBe(200);
		expect(odd.body.user).toMatchObject({ username: expect.stringMatching(UUID_V4), displayName: "odd id!", email: "" });
	});

	test("a numeric identifier is used as its decimal string", async () => {
		const res = await sso("numeric-code");
		expect(res.status).toBe(200);
		expect((res.body.user as { username: string }).username).toBe("12345");
	});

	test.each([
		["a malformed idpName", "corp", "alice-code"],
		["an idpName of another kind", "memos/corp", "alice-code"],
		["an unknown provider", "identity-providers/nope", "alice-code"],
		["an empty code", "identity-providers/corp", ""]
	])("%s: INVALID_ARGUMENT", async (_case, idp, code) => {
		const res = await sso(code, idp);
		expect(res.status).toBe(400);
		expect(res.body.code).toBe(3);
	});

	test.each([
		["the token URL rejects the code", "reject", "ok", "alice-code"],
		["the token answer has no access token", "no-token", "ok", "alice-code"],
		["the userinfo lacks the identifier", "json", "ok", "nosub-code"],
		["the userinfo refuses the token", "json", "unauthorized", "alice-code"],
		["the userinfo is not JSON", "json", "not-json", "alice-code"]
	] as const)("%s: INVALID_ARGUMENT", async (_case, tokenMode, userInfoMode, code) => {
		provider.tokenMode = tokenMode;
		provider.userInfoMode = userInfoMode;
		const res = await sso(code);
		expect(res.status).toBe(400);
		expect(res.body.code).toBe(3);
	});

	test.each([
		["the token URL answers 5xx", "error", "ok"],
		["the userinfo answers 5xx", "json", "error"]
	] as const)("%s: UNAVAILABLE", async (_case, tokenMode, userInfoMode) => {
		provider.tokenMode = tokenMode;
		provider.userInfoMode = userInfoMode;
		const res = await sso("alice-code");
		expect(res.status).toBe(503);
		expect(res.body.code).toBe(14);
	});

	test("a provider that does not answer in time: UNAVAILABLE", async () => {
		const auth = app.node.broker.getLocalService("auth") as unknown as { ssoTimeoutMs: number };
		auth.ssoTimeoutMs = 200;
		provider.tokenMode = "hang";
		try {
			const res = await sso("alice-code");
			expect(res.status).toBe(503);
			expect(res.body.code).toBe(14);
		} finally {
			auth.ssoTimeoutMs = 10_000;
		}
	});

	test("an unreachable provider: UNAVAILABLE", async () => {
		const dead = await startOAuth2Provider();
		await dead.stop();
		await api("POST", "/api/v1/identity-providers?identityProviderId=dead", {
			type: "OAUTH2",
			title: "Dead",
			config: { oauth2Config: { clientId: "c", clientSecret: "s", authUrl: `${dead.url}/a`, tokenUrl: `${dead.url}/token`, userInfoUrl: `${dead.url}/userinfo`, fieldMapping: { identifier: "sub" } } }
		}, app.admin.accessToken);
		const res = await sso("alice-code", "identity-providers/dead");
		expect(res.status).toBe(503);
		expect(res.body.code).toBe(14);
	});

	test("an identifier outside the provider's identifierFilter: PERMISSION_DENIED", async () => {
		const res = await sso("alice-code", "identity-providers/filtered");
		expect(res.status).toBe(403);
		expect(res.body.code).toBe(7);
		expect((await sso("corp-code", "identity-providers/filtered")).status).toBe(200);
	});

	test("a first sign-in while registration is disallowed: PERMISSION_DENIED; linked users still sign in", async () => {
		expect((await sso("alice-code")).status).toBe(200);
		await setGeneral({ disallowUserRegistration: true });
		try {
			const res = await sso("late-code");
			expect(res.status).toBe(403);
			expect(res.body.code).toBe(7);
			expect((await sso("alice-code")).status).toBe(200);
		} finally {
			await setGeneral({ disallowUserRegistration: false });
		}
	});

	test("an ARCHIVED linked user: PERMISSION_DENIED", async () => {
		expect((await sso("corp-code", "identity-providers/filtered")).status).toBe(200);
		expect((await api("PATCH", "/api/v1/users/corp-bob?updateMask=state", { state: "ARCHIVED" }, app.admin.accessToken)).status).toBe(200);
		const res = await sso("corp-code", "identity-providers/filtered");
		expect(res.status).toBe(403);
		expect(res.body.code).toBe(7);
	});

	test("deleting a provider removes its user links (contract 10): a provider re-created under the same id starts afresh", async () => {
		provider.users.set("relink-code", { sub: "relinker" });
		await createProvider("transient");
		const first = await sso("relink-code", "identity-providers/transient");
		expect((first.body.user as { name: string }).name).toBe("users/relinker");
		expect((await api("DELETE", "/api/v1/identity-providers/transient", undefined, app.admin.accessToken)).status).toBe(200);
		await createProvider("transient");
		const again = await sso("relink-code", "identity-providers/transient");
		expect(again.status).toBe(200);
		// Not linked any more, so a new USER; the identifier is taken by the first, so a UUID username.
		expect((again.body.user as { username: string }).username).toMatch(UUID_V4);
	});

	test("the client secret never appears in an answer", async () => {
		const list = await api("GET", "/api/v1/identity-providers");
		expect(JSON.stringify(list.body)).not.toContain("s3cret-of-memos");
	});
});
