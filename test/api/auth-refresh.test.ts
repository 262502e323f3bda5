import { SignJWT } from "jose";
import { shiftAuthClock, type AuthClock } from "../support/auth-clock.js";
import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { authHeaders, refreshCookieOf, signIn, signUp, type Session } from "../support/users.js";

const CLEARED = "memos_refresh=; Path=/; HttpOnly; SameSite=Lax; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0";

let app: EmbeddedApp;
let clock: AuthClock;

function advance(ms: number): void {
	clock.advance(ms);
}

beforeAll(async () => {
	app = await startEmbeddedApp();
	clock = shiftAuthClock(app);
	await signUp(app.baseUrl, "alice");
});

afterAll(async () => {
	await app.stop();
});

function refresh(cookie?: string, headers: Record<string, string> = {}): Promise<Response> {
	return fetch(`${app.baseUrl}/api/v1/auth/refresh`, { method: "POST", headers: { ...headers, ...(cookie === undefined ? {} : { Cookie: cookie }) }, body: "{}" });
}

function me(token: string, cookie?: string): Promise<Response> {
	return fetch(`${app.baseUrl}/api/v1/auth/me`, { headers: { Authorization: `Bearer ${token}`, ...(cookie === undefined ? {} : { Cookie: cookie }) } });
}

async function expectUnauthenticated(res: Response): Promise<void> {
	expect(res.status).toBe(401);
	expect(((await res.json()) as { code: number }).code).toBe(16);
}

describe("RefreshToken (contract 2.1, 2.3)", () => {
	let session: Session;
	beforeEach(async () => {
		session = await signIn(app.baseUrl, "alice");
	});

	test("issues an access token and rotates the cookie, sliding 30 days", async () => {
		const res = await refresh(session.cookie);
		expect(res.status).toBe(200);
		const body = (await res.json()) as { accessToken: string; expiresAt: string };
		expect(Object.keys(body).sort()).toEqual(["accessToken", "expiresAt"]);
		expect(body.expiresAt).toMatch(/Z$/);
		const next = refreshCookieOf(res);
		expect(next).toBeDefined();
		expect(next).not.toBe(session.cookie);
		expect(res.headers.getSetCookie()[0]).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Expires=.* GMT; Max-Age=2592000$/);
		expect((await me(body.accessToken)).status).toBe(200);
		expect((await refresh(next)).status).toBe(200);
	});

	test("works without an access token and ignores an invalid one", async () => {
		expect((await refresh(session.cookie, { Authorization: "Bearer junk" })).status).toBe(200);
	});

	test("a rotated cookie presented again within 5 seconds: refused, no Set-Cookie, family kept", async () => {
		const first = await refresh(session.cookie);
		const next = refreshCookieOf(first) as string;
		advance(4_000);
		const again = await refresh(session.cookie);
		await expectUnauthenticated(again);
		expect(again.headers.getSetCookie()).toEqual([]);
		expect((await refresh(next)).status).toBe(200);
	});

	test("a rotated cookie presented again after 5 seconds revokes the whole family and clears the cookie", async () => {
		const first = await refresh(session.cookie);
		const next = refreshCookieOf(first) as string;
		advance(6_000);
		const reuse = await refresh(session.cookie);
		await expectUnauthenticated(reuse);
		expect(reuse.headers.getSetCookie()).toEqual([CLEARED]);
		await expectUnauthenticated(await refresh(next));
	});

	test("another sign-in's family survives a reuse", async () => {
		const other = await signIn(app.baseUrl, "alice");
		await refresh(session.cookie);
		advance(6_000);
		await refresh(session.cookie);
		expect((await refresh(other.cookie)).status).toBe(200);
	});

	test("a cookie expires after 30 days without use", async () => {
		advance(30 * 24 * 3600_000 + 1000);
		const res = await refresh(session.cookie);
		await expectUnauthenticated(res);
		expect(res.headers.getSetCookie()).toEqual([CLEARED]);
	});

	test("the cookie gets Secure behind TLS, when set and when cleared", async () => {
		const ok = await refresh(session.cookie, { "X-Forwarded-Proto": "https" });
		expect(ok.headers.getSetCookie()[0]).toMatch(/; Secure$/);
		const bad = await refresh("memos_refresh=nope", { "X-Forwarded-Proto": "https" });
		expect(bad.headers.getSetCookie()).toEqual([`${CLEARED}; Secure`]);
	});

	test.each([
		["no cookie", undefined],
		["another cookie only", "theme=dark"],
		["an empty value", "memos_refresh="],
		["a malformed value", "memos_refresh=%%%;;"],
		["an unknown token of the right shape", `memos_refresh=${"A".repeat(43)}`],
		["a very long value", `memos_refresh=${"x".repeat(6000)}`],
		["a quoted garbage value", 'memos_refresh="a b c"']
	])("%s: UNAUTHENTICATED and the cookie cleared", async (_case, cookie) => {
		const res = await refresh(cookie);
		await expectUnauthenticated(res);
		expect(res.headers.getSetCookie()).toEqual([CLEARED]);
	});
});

describe("SignOut (contract 2.3)", () => {
	test("revokes the family and clears the cookie", async () => {
		const session = await signIn(app.baseUrl, "alice");
		const res = await fetch(`${app.baseUrl}/api/v1/auth/signout`, { method: "POST", headers: { Cookie: session.cookie } });
		expect(res.status).toBe(200);
		expect(res.headers.get("content-length")).toBe("0");
		expect(await res.text()).toBe("");
		expect(res.headers.getSetCookie()).toEqual([CLEARED]);
		await expectUnauthenticated(await refresh(session.cookie));
	});

	test("answers 200 without a cookie, and with a malformed one", async () => {
		for (const headers of [{}, { Cookie: "memos_refresh=@@@" }] as Record<string, string>[]) {
			const res = await fetch(`${app.baseUrl}/api/v1/auth/signout`, { method: "POST", headers });
			expect(res.status).toBe(200);
			expect(res.headers.getSetCookie()).toEqual([CLEARED]);
		}
	});
});

describe("access tokens (contract 2.1)", () => {
	test("expire after 15 minutes; GetCurrentUser then clears the refresh cookie", async () => {
		const session = await signIn(app.baseUrl, "alice");
		advance(14 * 60_000);
		expect((await me(session.accessToken)).status).toBe(200);
		advance(60_000 + 1000);
		const res = await me(session.accessToken, session.cookie);
		await expectUnauthenticated(res);
		expect(res.headers.getSetCookie()).toEqual([CLEARED]);
	});

	test("GetCurrentUser answers the caller with the e-mail, as UNAUTHENTICATED for anonymous callers with the cookie cleared", async () => {
		const session = await signIn(app.baseUrl, "alice");
		expect(((await (await me(session.accessToken)).json()) as { user: { username: string } }).user.username).toBe("alice");
		const anonymous = await fetch(`${app.baseUrl}/api/v1/auth/me`, { headers: { Cookie: session.cookie } });
		await expectUnauthenticated(anonymous);
		expect(anonymous.headers.getSetCookie()).toEqual([CLEARED]);
	});

	test.each([
		["not a JWT", async () => "abc.def"],
		["alg none", async (s: Session) => {
			const [, payload] = s.accessToken.split(".");
			return `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${payload}.`;
		}],
		["signed with another key", async (s: Session) => {
			const claims = JSON.parse(Buffer.from(s.accessToken.split(".")[1] as string, "base64url").toString()) as Record<string, unknown>;
			return new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode("another secret of at least 32 bytes!!"));
		}],
		["a tampered payload", async (s: Session) => {
			const [header, payload, signature] = s.accessToken.split(".") as [string, string, string];
			const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
			return `${header}.${Buffer.from(JSON.stringify({ ...claims, username: "root" })).toString("base64url")}.${signature}`;
		}],
		["an 8 KB token", async () => "a".repeat(8192)]
	])("%s: UNAUTHENTICATED, never 500", async (_case, make) => {
		const session = await signIn(app.baseUrl, "alice");
		const token = await make(session);
		await expectUnauthenticated(await me(token));
		await expectUnauthenticated(await fetch(`${app.baseUrl}/api/v1/instance/profile`, { headers: authHeaders(token) }));
	});

	test.each([["Basic YWxpY2U6cHc="], ["Bearer"], ["Bearer a b"], [""]])("Authorization %j: UNAUTHENTICATED", async header => {
		await expectUnauthenticated(await fetch(`${app.baseUrl}/api/v1/auth/me`, { headers: { Authorization: header } }));
	});

	test("a huge Authorization header is refused with a client error, never 500", async () => {
		const res = await fetch(`${app.baseUrl}/api/v1/instance/profile`, { headers: { Authorization: `Bearer ${"a".repeat(64 * 1024)}` } });
		expect(res.status).toBeGreaterThanOrEqual(400);
		expect(res.status).toBeLessThan(500);
		expect((await fetch(`${app.baseUrl}/api/v1/instance/profile`)).status).toBe(200);
	});
});
