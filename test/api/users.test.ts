import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { DEFAULT_PASSWORD, authHeaders, refreshCookieOf, signIn, signUp, startPopulatedApp, type Population, type Session } from "../support/users.js";

type App = EmbeddedApp & Population;

async function call(app: EmbeddedApp, method: string, path: string, session?: Session | string, body?: unknown): Promise<{ status: number; body: Record<string, unknown>; res: Response }> {
	const headers: Record<string, string> = session === undefined ? { "Content-Type": "application/json" } : authHeaders(session);
	const res = await fetch(`${app.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
	const text = await res.text();
	return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>), res };
}

async function setGeneral(app: App, fields: Record<string, boolean>): Promise<void> {
	const res = await call(app, "PATCH", "/api/v1/instance/settings/GENERAL", app.admin, { generalSetting: fields });
	expect(res.status).toBe(200);
}

async function setAccess(app: App, accessMode: string): Promise<void> {
	const res = await call(app, "PATCH", "/api/v1/instance/settings/ACCESS", app.admin, { accessSetting: { accessMode } });
	expect(res.status).toBe(200);
}

describe("CreateUser (contract 2.4)", () => {
	test("of concurrent first sign-ups on an empty instance exactly one becomes ADMIN", async () => {
		const app = await startEmbeddedApp();
		try {
			const names = Array.from({ length: 8 }, (_, i) => `first${i}`);
			const users = await Promise.all(names.map(name => signUp(app.baseUrl, name)));
			expect(users.filter(u => u.role === "ADMIN")).toHaveLength(1);
			expect(users.filter(u => u.role === "USER")).toHaveLength(7);
			const profile = (await (await fetch(`${app.baseUrl}/api/v1/instance/profile`)).json()) as { needsSetup: boolean; admin: { username: string } };
			expect(profile.needsSetup).toBe(false);
			expect(profile.admin.username).toBe(users.find(u => u.role === "ADMIN")?.username);
		} finally {
			await app.stop();
		}
	});

	describe("on a populated instance", () => {
		let app: App;
		beforeAll(async () => {
			app = await startPopulatedApp(2);
		});
		afterAll(async () => {
			await app.stop();
		});

		test("answers the User with e-mail and no password; later users are USERs whatever they ask", async () => {
			const res = await call(app, "POST", "/api/v1/users", undefined, { username: "carol", password: DEFAULT_PASSWORD, email: "carol@example.com", displayName: "Carol", role: "ADMIN" });
			expect(res.status).toBe(200);
			expect(res.body).toEqual({
				name: "users/carol",
				role: "USER",
				username: "carol",
				email: "carol@example.com",
				displayName: "Carol",
				avatarUrl: "",
				description: "",
				state: "NORMAL",
				createTime: expect.stringMatching(/Z$/),
				updateTime: res.body.createTime
			});
			expect(refreshCookieOf(res.res)).toBeUndefined();
		});

		test("an ADMIN may create ADMINs", async () => {
			const res = await call(app, "POST", "/api/v1/users?userId=dave", app.admin, { username: "dave", password: DEFAULT_PASSWORD, role: "ADMIN" });
			expect(res.status).toBe(200);
			expect(res.body.role).toBe("ADMIN");
		});

		test.each([
			["no username", { password: DEFAULT_PASSWORD }],
			["an invalid username", { username: "-bad-", password: DEFAULT_PASSWORD }],
			["a username with a slash", { username: "a/b", password: DEFAULT_PASSWORD }],
			["a 37-character username", { username: "a".repeat(37), password: DEFAULT_PASSWORD }],
			["no password", { username: "erin" }],
			["an empty password", { username: "erin", password: "" }],
			["a 7-byte password", { username: "erin", password: "seven77" }],
			["a password over 72 bytes", { username: "erin", password: "ü".repeat(37) }],
			["a bad e-mail", { username: "erin", password: DEFAULT_PASSWORD, email: "not-an-address" }],
			["a bad role", { username: "erin", password: DEFAULT_PASSWORD, role: "OWNER" }],
			["a username of the wrong type", { username: 42, password: DEFAULT_PASSWORD }]
		])("%s: INVALID_ARGUMENT", async (_case, body) => {
			const res = await call(app, "POST", "/api/v1/users", undefined, body);
			expect(res.status).toBe(400);
			expect(res.body.code).toBe(3);
		});

		test("a userId that differs from the username: INVALID_ARGUMENT", async () => {
			expect((await call(app, "POST", "/api/v1/users?userId=other", undefined, { username: "frank", password: DEFAULT_PASSWORD })).status).toBe(400);
		});

		test("a taken username: ALREADY_EXISTS", async () => {
			const res = await call(app, "POST", "/api/v1/users", undefined, { username: "user1", password: DEFAULT_PASSWORD });
			expect(res.status).toBe(409);
			expect(res.body.code).toBe(6);
		});

		test("a 72-byte password is accepted and signs in", async () => {
			const password = "ü".repeat(36);
			await signUp(app.baseUrl, "grace", password);
			expect((await signIn(app.baseUrl, "grace", password)).user.username).toBe("grace");
		});

		test("the 8-byte minimum counts bytes: 4 two-byte characters are enough", async () => {
			await signUp(app.baseUrl, "gwen", "üüüü");
			expect((await signIn(app.baseUrl, "gwen", "üüüü")).user.username).toBe("gwen");
		});

		test("registration closed by GENERAL: anonymous sign-ups refused, admins still create users", async () => {
			await setGeneral(app, { disallowUserRegistration: true });
			try {
				const res = await call(app, "POST", "/api/v1/users", undefined, { username: "henry", password: DEFAULT_PASSWORD });
				expect(res.status).toBe(403);
				expect(res.body.code).toBe(7);
				expect((await call(app, "POST", "/api/v1/users", app.users[0], { username: "henry", password: DEFAULT_PASSWORD })).status).toBe(403);
				expect((await call(app, "POST", "/api/v1/users", app.admin, { username: "henry", password: DEFAULT_PASSWORD })).status).toBe(200);
			} finally {
				await setGeneral(app, { disallowUserRegistration: false });
			}
		});
	});
});

describe("SignIn rules that depend on the user and settings (contract 2.3)", () => {
	let app: App;
	beforeAll(async () => {
		app = await startPopulatedApp(2);
	});
	afterAll(async () => {
		await app.stop();
	});

	async function passwordSignIn(username: string): Promise<{ status: number; body: Record<string, unknown> }> {
		return call(app, "POST", "/api/v1/auth/signin", undefined, { passwordCredentials: { username, password: DEFAULT_PASSWORD } });
	}

	test("disallowPasswordAuth refuses USERs with PERMISSION_DENIED, not ADMINs", async () => {
		await call(app, "POST", "/api/v1/identity-providers?identityProviderId=corp", app.admin, {
			type: "OAUTH2",
			title: "Corp",
			config: { oauth2Config: { clientId: "c", clientSecret: "s", authUrl: "http://127.0.0.1:1/a", tokenUrl: "http://127.0.0.1:1/t", userInfoUrl: "http://127.0.0.1:1/u", fieldMapping: { identifier: "sub" } } }
		});
		await setGeneral(app, { disallowPasswordAuth: true });
		try {
			const refused = await passwordSignIn("user1");
			expect(refused.status).toBe(403);
			expect(refused.body.code).toBe(7);
			expect((await passwordSignIn("admin")).status).toBe(200);
			expect((await call(app, "POST", "/api/v1/users", undefined, { username: "ivan", password: DEFAULT_PASSWORD })).status).toBe(403);
		} finally {
			await setGeneral(app, { disallowPasswordAuth: false });
		}
	});

	test("an ARCHIVED user: PERMISSION_DENIED at sign-in, tokens and refresh cookies stop working", async () => {
		const victim = await signIn(app.baseUrl, "user2");
		const archived = await call(app, "PATCH", "/api/v1/users/user2?updateMask=state", app.admin, { state: "ARCHIVED" });
		expect(archived.status).toBe(200);
		expect(archived.body.state).toBe("ARCHIVED");
		const res = await passwordSignIn("user2");
		expect(res.status).toBe(403);
		expect((await call(app, "GET", "/api/v1/auth/me", victim)).status).toBe(401);
		const refresh = await fetch(`${app.baseUrl}/api/v1/auth/refresh`, { method: "POST", headers: { Cookie: victim.cookie } });
		expect(refresh.status).toBe(401);
		expect((await call(app, "PATCH", "/api/v1/users/user2?updateMask=state", app.admin, { state: "NORMAL" })).status).toBe(200);
		expect((await passwordSignIn("user2")).status).toBe(200);
	});
});

describe("GetUser, ListUsers, UpdateUser, DeleteUser (contract 2.4)", () => {
	let app: App;
	let alice: Session;
	let bob: Session;
	beforeAll(async () => {
		app = await startPopulatedApp(0);
		await signUp(app.baseUrl, "alice", DEFAULT_PASSWORD, { email: "alice@example.com" });
		await signUp(app.baseUrl, "bob", DEFAULT_PASSWORD, { email: "bob@example.com" });
		alice = await signIn(app.baseUrl, "alice");
		bob = await signIn(app.baseUrl, "bob");
	});
	afterAll(async () => {
		await app.stop();
	});

	test("GetUser: e-mail for the user themself and admins only", async () => {
		expect((await call(app, "GET", "/api/v1/users/alice", alice)).body.email).toBe("alice@example.com");
		expect((await call(app, "GET", "/api/v1/users/alice", app.admin)).body.email).toBe("alice@example.com");
		const seen = await call(app, "GET", "/api/v1/users/alice", bob);
		expect(seen.status).toBe(200);
		expect(seen.body.email).toBe("");
		expect((await call(app, "GET", "/api/v1/users/nobody", bob)).status).toBe(404);
	});

	test("GetUser anonymously: UNAUTHENTICATED on a private instance before existence; allowed on a public one", async () => {
		expect((await call(app, "GET", "/api/v1/users/alice")).status).toBe(401);
		expect((await call(app, "GET", "/api/v1/users/nobody")).status).toBe(401);
		await setAccess(app, "INSTANCE_ACCESS_MODE_PUBLIC");
		try {
			const res = await call(app, "GET", "/api/v1/users/alice");
			expect(res.status).toBe(200);
			expect(res.body.email).toBe("");
			expect((await call(app, "GET", "/api/v1/users/nobody")).status).toBe(404);
		} finally {
			await setAccess(app, "INSTANCE_ACCESS_MODE_PRIVATE");
		}
	});

	test("ListUsers: admins only, oldest first, paginated, filtered by username", async () => {
		expect((await call(app, "GET", "/api/v1/users", bob)).status).toBe(403);
		expect((await call(app, "GET", "/api/v1/users")).status).toBe(401);
		const all = await call(app, "GET", "/api/v1/users", app.admin);
		expect((all.body.users as { username: string }[]).map(u => u.username)).toEqual(["admin", "alice", "bob"]);
		expect(all.body.nextPageToken).toBe("");
		const first = await call(app, "GET", "/api/v1/users?pageSize=2", app.admin);
		expect((first.body.users as { username: string }[]).map(u => u.username)).toEqual(["admin", "alice"]);
		const second = await call(app, "GET", `/api/v1/users?pageSize=2&pageToken=${first.body.nextPageToken as string}`, app.admin);
		expect((second.body.users as { username: string }[]).map(u => u.username)).toEqual(["bob"]);
		expect(second.body.nextPageToken).toBe("");
		const filtered = await call(app, "GET", `/api/v1/users?filter=${encodeURIComponent('username == "bob"')}`, app.admin);
		expect((filtered.body.users as { email: string }[]).map(u => u.email)).toEqual(["bob@example.com"]);
		expect((await call(app, "GET", `/api/v1/users?filter=${encodeURIComponent("role == 'ADMIN'")}`, app.admin)).status).toBe(400);
		expect((await call(app, "GET", "/api/v1/users?pageToken=garbage", app.admin)).status).toBe(400);
		expect((await call(app, "GET", "/api/v1/users?pageSize=abc", app.admin)).status).toBe(400);
	});

	test("UpdateUser: self or admin, named fields only, mask required", async () => {
		const res = await call(app, "PATCH", "/api/v1/users/alice?updateMask=display_name,description", alice, { displayName: "Alice A.", description: "hi", email: "ignored@example.com" });
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ displayName: "Alice A.", description: "hi", email: "alice@example.com" });
		expect((await call(app, "PATCH", "/api/v1/users/alice?updateMask=description", bob, { description: "x" })).status).toBe(403);
		expect((await call(app, "PATCH", "/api/v1/users/alice", alice, { description: "x" })).status).toBe(400);
		expect((await call(app, "PATCH", "/api/v1/users/alice?updateMask=create_time", alice, {})).status).toBe(400);
		expect((await call(app, "PATCH", "/api/v1/users/nobody?updateMask=description", app.admin, {})).status).toBe(404);
		expect((await call(app, "PATCH", "/api/v1/users/alice?updateMask=description", app.admin, { description: "by admin" })).body.description).toBe("by admin");
	});

	test("UpdateUser: role and state by admins only", async () => {
		expect((await call(app, "PATCH", "/api/v1/users/alice?updateMask=role", alice, { role: "ADMIN" })).status).toBe(403);
		expect((await call(app, "PATCH", "/api/v1/users/alice?updateMask=state", alice, { state: "ARCHIVED" })).status).toBe(403);
		expect((await call(app, "PATCH", "/api/v1/users/alice?updateMask=role", app.admin, { role: "ROLE_UNSPECIFIED" })).status).toBe(400);
	});

	test("the last active ADMIN cannot be demoted, archived or deleted", async () => {
		const demote = await call(app, "PATCH", "/api/v1/users/admin?updateMask=role", app.admin, { role: "USER" });
		expect(demote.status).toBe(400);
		expect(demote.body.code).toBe(9);
		expect((await call(app, "PATCH", "/api/v1/users/admin?updateMask=state", app.admin, { state: "ARCHIVED" })).body.code).toBe(9);
		expect((await call(app, "DELETE", "/api/v1/users/admin", app.admin)).body.code).toBe(9);
		// With a second admin the first may step down; the new role shows in the next request.
		expect((await call(app, "PATCH", "/api/v1/users/bob?updateMask=role", app.admin, { role: "ADMIN" })).status).toBe(200);
		expect((await call(app, "GET", "/api/v1/users", bob)).status).toBe(200);
		expect((await call(app, "PATCH", "/api/v1/users/bob?updateMask=role", app.admin, { role: "USER" })).status).toBe(200);
		expect((await call(app, "GET", "/api/v1/users", bob)).status).toBe(403);
	});

	test("username and display name changes follow GENERAL", async () => {
		await setGeneral(app, { disallowChangeUsername: true, disallowChangeNickname: true });
		try {
			expect((await call(app, "PATCH", "/api/v1/users/alice?updateMask=username", alice, { username: "alicia" })).status).toBe(403);
			expect((await call(app, "PATCH", "/api/v1/users/alice?updateMask=displayName", alice, { displayName: "A" })).status).toBe(403);
		} finally {
			await setGeneral(app, { disallowChangeUsername: false, disallowChangeNickname: false });
		}
		expect((await call(app, "PATCH", "/api/v1/users/alice?updateMask=username", alice, { username: "bob" })).status).toBe(409);
		expect((await call(app, "PATCH", "/api/v1/users/alice?updateMask=username", alice, { username: "no way" })).status).toBe(400);
		const renamed = await call(app, "PATCH", "/api/v1/users/alice?updateMask=username", alice, { username: "alicia" });
		expect(renamed.body.name).toBe("users/alicia");
		expect((await call(app, "GET", "/api/v1/auth/me", alice)).body.user).toMatchObject({ username: "alicia" });
		expect((await call(app, "PATCH", "/api/v1/users/alicia?updateMask=username", alice, { username: "alice" })).status).toBe(200);
	});

	test("avatar_url: http(s) URLs and image data URIs; data URIs are served from the avatar route", async () => {
		const url = await call(app, "PATCH", "/api/v1/users/bob?updateMask=avatar_url", bob, { avatarUrl: "https://example.com/a.png" });
		expect(url.body.avatarUrl).toBe("https://example.com/a.png");
		const data = await call(app, "PATCH", "/api/v1/users/bob?updateMask=avatarUrl", bob, { avatarUrl: "data:image/png;base64,iVBORw0KGgo=" });
		expect(data.status).toBe(200);
		expect(data.body.avatarUrl).toBe("/file/users/bob/avatar");
		for (const bad of ["javascript:alert(1)", "data:text/html;base64,PGI+", "ftp://example.com/a.png", "not a url"]) {
			expect((await call(app, "PATCH", "/api/v1/users/bob?updateMask=avatar_url", bob, { avatarUrl: bad })).status).toBe(400);
		}
	});

	test("a password change keeps the session it was made from and revokes the others", async () => {
		const other = await signIn(app.baseUrl, "bob");
		const res = await fetch(`${app.baseUrl}/api/v1/users/bob?updateMask=password`, {
			method: "PATCH",
			headers: { ...authHeaders(bob), Cookie: bob.cookie },
			body: JSON.stringify({ password: "new password" })
		});
		expect(res.status).toBe(200);
		const refresh = (cookie: string) => fetch(`${app.baseUrl}/api/v1/auth/refresh`, { method: "POST", headers: { Cookie: cookie } });
		expect((await refresh(other.cookie)).status).toBe(401);
		const kept = await refresh(bob.cookie);
		expect(kept.status).toBe(200);
		bob = { ...bob, cookie: refreshCookieOf(kept) as string };
		expect((await call(app, "POST", "/api/v1/auth/signin", undefined, { passwordCredentials: { username: "bob", password: DEFAULT_PASSWORD } })).status).toBe(400);
		expect((await signIn(app.baseUrl, "bob", "new password")).user.username).toBe("bob");
		expect((await call(app, "PATCH", "/api/v1/users/bob?updateMask=password", bob, { password: "x".repeat(73) })).status).toBe(400);
		const short = await call(app, "PATCH", "/api/v1/users/bob?updateMask=password", bob, { password: "x".repeat(7) });
		expect([short.status, short.body.code]).toEqual([400, 3]);
	});

	test("DeleteUser: admins only; the user, their tokens and their sessions are gone", async () => {
		await signUp(app.baseUrl, "zoe");
		const zoe = await signIn(app.baseUrl, "zoe");
		expect((await call(app, "DELETE", "/api/v1/users/zoe", bob)).status).toBe(403);
		const res = await call(app, "DELETE", "/api/v1/users/zoe", app.admin);
		expect(res.status).toBe(200);
		expect(res.res.headers.get("content-length")).toBe("0");
		expect((await call(app, "GET", "/api/v1/users/zoe", app.admin)).status).toBe(404);
		expect((await call(app, "GET", "/api/v1/auth/me", zoe)).status).toBe(401);
		expect((await fetch(`${app.baseUrl}/api/v1/auth/refresh`, { method: "POST", headers: { Cookie: zoe.cookie } })).status).toBe(401);
		expect((await call(app, "DELETE", "/api/v1/users/zoe", app.admin)).status).toBe(404);
		await signUp(app.baseUrl, "zoe");
	});
});
