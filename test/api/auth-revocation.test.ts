import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { DEFAULT_PASSWORD, authHeaders, signIn, signUp, type Session } from "../support/users.js";

/** Contract 19, "Revocation": revoking a session stops its access tokens too, not only its refresh cookie. */

let app: EmbeddedApp;
let admin: Session;

beforeAll(async () => {
	app = await startEmbeddedApp();
	await signUp(app.baseUrl, "admin");
	admin = await signIn(app.baseUrl, "admin");
	for (const username of ["alice", "bob", "carol", "dave", "erin"]) await signUp(app.baseUrl, username, DEFAULT_PASSWORD, { accessToken: admin.accessToken });
});

afterAll(async () => {
	await app.stop();
});

async function me(token: string): Promise<number> {
	return (await fetch(`${app.baseUrl}/api/v1/auth/me`, { headers: authHeaders(token) })).status;
}

function patchUser(as: Session, username: string, mask: string, body: unknown, cookie?: string): Promise<Response> {
	return fetch(`${app.baseUrl}/api/v1/users/${username}?updateMask=${mask}`, {
		method: "PATCH",
		headers: { ...authHeaders(as), ...(cookie === undefined ? {} : { Cookie: cookie }) },
		body: JSON.stringify(body)
	});
}

describe("revocation of access tokens (contract 19)", () => {
	test("SignOut stops the access token of its session, not those of the user's other sessions", async () => {
		const signedOut = await signIn(app.baseUrl, "alice");
		const other = await signIn(app.baseUrl, "alice");
		expect(await me(signedOut.accessToken)).toBe(200);
		const res = await fetch(`${app.baseUrl}/api/v1/auth/signout`, { method: "POST", headers: { Cookie: signedOut.cookie } });
		expect(res.status).toBe(200);
		expect(await me(signedOut.accessToken)).toBe(401);
		expect(await me(other.accessToken)).toBe(200);
	});

	test("a token refreshed in a session is stopped with it", async () => {
		const session = await signIn(app.baseUrl, "alice");
		const refreshed = await fetch(`${app.baseUrl}/api/v1/auth/refresh`, { method: "POST", headers: { Cookie: session.cookie }, body: "{}" });
		expect(refreshed.status).toBe(200);
		const { accessToken } = (await refreshed.json()) as { accessToken: string };
		const cookie = refreshed.headers.getSetCookie()[0]?.split(";")[0] as string;
		expect(await me(accessToken)).toBe(200);
		expect((await fetch(`${app.baseUrl}/api/v1/auth/signout`, { method: "POST", headers: { Cookie: cookie } })).status).toBe(200);
		expect(await me(accessToken)).toBe(401);
		expect(await me(session.accessToken)).toBe(401);
	});

	test("a password change stops the user's other sessions and keeps the one it was made from", async () => {
		const changer = await signIn(app.baseUrl, "bob");
		const other = await signIn(app.baseUrl, "bob");
		// Made with the access token alone: its session is the one kept.
		expect((await patchUser(changer, "bob", "password", { password: "bob's new password" })).status).toBe(200);
		expect(await me(other.accessToken)).toBe(401);
		expect(await me(changer.accessToken)).toBe(200);
		// An admin's change of someone else's password stops all of their sessions.
		expect((await patchUser(admin, "bob", "password", { password: "bob's newer password" })).status).toBe(200);
		expect(await me(changer.accessToken)).toBe(401);
		expect(await me(admin.accessToken)).toBe(200);
	});

	test("archiving stops the user's sessions for good: restoring the user does not bring them back", async () => {
		const carol = await signIn(app.baseUrl, "carol");
		expect((await patchUser(admin, "carol", "state", { state: "ARCHIVED" })).status).toBe(200);
		expect(await me(carol.accessToken)).toBe(401);
		expect((await patchUser(admin, "carol", "state", { state: "NORMAL" })).status).toBe(200);
		expect(await me(carol.accessToken)).toBe(401);
		expect(await me((await signIn(app.baseUrl, "carol")).accessToken)).toBe(200);
	});

	test("deleting a user stops their access tokens", async () => {
		const dave = await signIn(app.baseUrl, "dave");
		expect((await fetch(`${app.baseUrl}/api/v1/users/dave`, { method: "DELETE", headers: authHeaders(admin) })).status).toBe(200);
		expect(await me(dave.accessToken)).toBe(401);
	});

	test("a personal access token is not a session: it keeps working after the user signs out and changes the password", async () => {
		const erin = await signIn(app.baseUrl, "erin");
		const created = await fetch(`${app.baseUrl}/api/v1/users/erin/personalAccessTokens`, { method: "POST", headers: authHeaders(erin), body: JSON.stringify({ description: "bot" }) });
		expect(created.status).toBe(200);
		const { token } = (await created.json()) as { token: string };
		expect((await patchUser(erin, "erin", "password", { password: "erin's new password" }, erin.cookie)).status).toBe(200);
		expect((await fetch(`${app.baseUrl}/api/v1/auth/signout`, { method: "POST", headers: { Cookie: erin.cookie } })).status).toBe(200);
		expect(await me(erin.accessToken)).toBe(401);
		expect(await me(token)).toBe(200);
	});
});
