import type { EmbeddedApp } from "../support/embedded-app.js";
import { memoClient } from "../support/memos-client.js";
import { identityProviderBody, startOAuth2Provider, type OAuth2Provider } from "../support/oauth2-provider.js";
import { startPopulatedApp, type Population } from "../support/users.js";

/** Linked identities (contract 16, upstream v0.30.0 shapes) and SSO sign-in through them, over HTTP. */

type App = EmbeddedApp & Population;
interface LinkedIdentity {
	name: string;
	idpName: string;
	externUid: string;
}
let app: App;
let provider: OAuth2Provider;
const api = memoClient(() => app.baseUrl);
const user1 = () => app.users[0]!;
const user2 = () => app.users[1]!;
const REDIRECT = "https://memos.example.com/auth/callback";

async function createProvider(id: string): Promise<void> {
	const res = await api.request("POST", "/identity-providers", {
		as: app.admin,
		query: { identityProviderId: id },
		body: identityProviderBody(provider, id)
	});
	expect(res.status).toBe(200);
}

const link = (as: App["admin"] | null, user: string, idp: string, code: string) =>
	api.request<LinkedIdentity & { code: number }>("POST", `/users/${user}/linkedIdentities`, { as, body: { idpName: `identity-providers/${idp}`, code, redirectUri: REDIRECT } });

async function ssoUser(idp: string, code: string): Promise<string> {
	const res = await api.request<{ user: { name: string } }>("POST", "/auth/signin", { body: { ssoCredentials: { idpName: `identity-providers/${idp}`, code, redirectUri: REDIRECT } } });
	expect(res.status).toBe(200);
	return res.body.user.name;
}

beforeAll(async () => {
	provider = await startOAuth2Provider();
	app = await startPopulatedApp(2);
	await createProvider("corp");
	await createProvider("other");
	for (const [code, sub] of [["u1", "ext-u1"], ["u1-second", "ext-u1-second"], ["u2-other", "ext-u2"], ["u2-corp", "ext-u2-corp"]]) provider.users.set(code, { sub, name: sub });
});

afterAll(async () => {
	await app.stop();
	await provider.stop();
});

describe("linked identities", () => {
	test("a user links their provider account; it is listed and read by provider id, and SSO sign-in with it is that user", async () => {
		const made = await link(user1(), "user1", "corp", "u1");
		expect(made.status).toBe(200);
		const expected = { name: "users/user1/linkedIdentities/corp", idpName: "identity-providers/corp", externUid: "ext-u1" };
		expect(made.body).toEqual(expected);
		expect((await api.request("GET", "/users/user1/linkedIdentities", { as: user1() })).body).toEqual({ linkedIdentities: [expected] });
		expect((await api.request("GET", "/users/user1/linkedIdentities/corp", { as: user1() })).body).toEqual(expected);

		const usersBefore = await api.request<{ users: unknown[] }>("GET", "/users", { as: app.admin });
		expect(await ssoUser("corp", "u1")).toBe("users/user1");
		expect((await api.request<{ users: unknown[] }>("GET", "/users", { as: app.admin })).body.users.length).toBe(usersBefore.body.users.length);

		// Linking the same account again answers the link; another account of the same provider, or someone else's, is ALREADY_EXISTS.
		expect((await link(user1(), "user1", "corp", "u1")).body).toEqual(expected);
		const second = await link(user1(), "user1", "corp", "u1-second");
		expect({ status: second.status, code: second.body.code }).toEqual({ status: 409, code: 6 });
		const stolen = await link(user2(), "user2", "corp", "u1");
		expect({ status: stolen.status, code: stolen.body.code }).toEqual({ status: 409, code: 6 });
		expect((await api.request("GET", "/users/user2/linkedIdentities", { as: user2() })).body).toEqual({ linkedIdentities: [] });
	});

	test("only the user links themself; admins may list, read and delete others' links; others get PERMISSION_DENIED", async () => {
		expect((await link(app.admin, "user2", "corp", "u2-corp")).status).toBe(403);
		expect((await link(user1(), "user2", "corp", "u2-corp")).status).toBe(403);
		expect((await api.request("GET", "/users/user1/linkedIdentities", { as: user2() })).status).toBe(403);
		expect((await api.request("GET", "/users/user1/linkedIdentities/corp", { as: user2() })).status).toBe(403);
		expect((await api.request("DELETE", "/users/user1/linkedIdentities/corp", { as: user2() })).status).toBe(403);
		expect((await api.request("GET", "/users/user1/linkedIdentities", { as: app.admin })).status).toBe(200);
		expect((await api.request("GET", "/users/user1/linkedIdentities", { as: null })).status).toBe(401);
		expect((await api.request("GET", "/users/nobody/linkedIdentities", { as: user1() })).status).toBe(404);
		expect((await api.request("GET", "/users/user1/linkedIdentities/other", { as: user1() })).status).toBe(404);
	});

	test("a failed exchange or a bad request links nothing", async () => {
		for (const body of [{ idpName: "identity-providers/corp", redirectUri: REDIRECT }, { idpName: "corp", code: "u2-corp" }, { idpName: "identity-providers/missing", code: "u2-corp" }]) {
			const res = await api.request<{ code: number }>("POST", "/users/user2/linkedIdentities", { as: user2(), body });
			expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 400, code: 3 });
		}
		provider.tokenMode = "reject";
		try {
			expect((await link(user2(), "user2", "corp", "u2-corp")).status).toBe(400);
		} finally {
			provider.tokenMode = "json";
		}
		expect((await api.request("GET", "/users/user2/linkedIdentities", { as: user2() })).body).toEqual({ linkedIdentities: [] });
	});

	test("after DeleteLinkedIdentity, SSO sign-in with that account no longer finds the user", async () => {
		expect((await link(user2(), "user2", "corp", "u2-corp")).status).toBe(200);
		expect(await ssoUser("corp", "u2-corp")).toBe("users/user2");
		const removed = await api.request("DELETE", "/users/user2/linkedIdentities/corp", { as: user2() });
		expect({ status: removed.status, text: removed.text }).toEqual({ status: 200, text: "" });
		expect((await api.request("GET", "/users/user2/linkedIdentities/corp", { as: user2() })).status).toBe(404);
		expect(await ssoUser("corp", "u2-corp")).not.toBe("users/user2");
	});

	test("deleting an identity provider removes its links (contract 10)", async () => {
		expect((await link(user2(), "user2", "other", "u2-other")).status).toBe(200);
		expect((await api.request("DELETE", "/identity-providers/other", { as: app.admin })).status).toBe(200);
		expect((await api.request("GET", "/users/user2/linkedIdentities", { as: user2() })).body).toEqual({ linkedIdentities: [] });
		await createProvider("other");
		expect(await ssoUser("other", "u2-other")).not.toBe("users/user2");
	});
});
