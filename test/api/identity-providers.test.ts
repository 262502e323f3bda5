import { documentsOf } from "../../shared/runtime/resources.js";
import type { EmbeddedApp } from "../support/embedded-app.js";
import { authHeaders, startPopulatedApp, type Population } from "../support/users.js";

type App = EmbeddedApp & Population;
let app: App;

function config(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		oauth2Config: {
			clientId: "client",
			clientSecret: "very-secret",
			authUrl: "https://idp.example.com/authorize",
			tokenUrl: "https://idp.example.com/token",
			userInfoUrl: "https://idp.example.com/userinfo",
			scopes: ["openid", "profile"],
			fieldMapping: { identifier: "sub", displayName: "name", email: "email", avatarUrl: "" },
			...overrides
		}
	};
}

function provider(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return { type: "OAUTH2", title: "Example", identifierFilter: "", config: config(), ...overrides };
}

async function api(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: Record<string, unknown> }> {
	const headers = token === undefined ? { "Content-Type": "application/json" } : authHeaders(token);
	const res = await fetch(`${app.baseUrl}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
	const text = await res.text();
	return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const admin = () => app.admin.accessToken;
const user = () => app.users[0]?.accessToken as string;

async function storedSecret(id: string): Promise<unknown> {
	const doc = await documentsOf(app.node.broker).collection("auth_identity_providers").findOne({ _id: id });
	return (doc?.oauth2Config as { clientSecret?: unknown } | undefined)?.clientSecret;
}

beforeAll(async () => {
	app = await startPopulatedApp(1);
});

afterAll(async () => {
	await app.stop();
});

describe("IdentityProviderService (contract 10)", () => {
	test("anyone lists them, even on a private instance; the list starts empty", async () => {
		expect(await api("GET", "/identity-providers")).toEqual({ status: 200, body: { identityProviders: [] } });
	});

	test("CreateIdentityProvider: admins only; the answer blanks the secret", async () => {
		expect((await api("POST", "/identity-providers?identityProviderId=github", provider())).status).toBe(401);
		expect((await api("POST", "/identity-providers?identityProviderId=github", provider(), user())).status).toBe(403);
		const res = await api("POST", "/identity-providers?identityProviderId=github", provider({ title: "GitHub" }), admin());
		expect(res).toEqual({
			status: 200,
			body: {
				name: "identity-providers/github",
				type: "OAUTH2",
				title: "GitHub",
				identifierFilter: "",
				config: {
					oauth2Config: {
						clientId: "client",
						clientSecret: "",
						authUrl: "https://idp.example.com/authorize",
						tokenUrl: "https://idp.example.com/token",
						userInfoUrl: "https://idp.example.com/userinfo",
						scopes: ["openid", "profile"],
						fieldMapping: { identifier: "sub", displayName: "name", email: "email", avatarUrl: "" }
					}
				}
			}
		});
		expect(await storedSecret("github")).toBe("very-secret");
	});

	test("without an id one is generated; a taken id is ALREADY_EXISTS", async () => {
		const res = await api("POST", "/identity-providers", provider({ title: "Generated" }), admin());
		expect(res.status).toBe(200);
		expect(res.body.name).toMatch(/^identity-providers\/[2-9A-HJ-NP-Za-km-z]{22}$/);
		const clash = await api("POST", "/identity-providers?identityProviderId=github", provider(), admin());
		expect(clash.status).toBe(409);
		expect(clash.body.code).toBe(6);
	});

	test.each([
		["an invalid id", "-bad", provider()],
		["type TYPE_UNSPECIFIED", "x1", provider({ type: "TYPE_UNSPECIFIED" })],
		["an unknown type", "x2", provider({ type: "SAML" })],
		["an empty title", "x3", provider({ title: " " })],
		["no config", "x4", provider({ config: undefined })],
		["no clientId", "x5", provider({ config: config({ clientId: "" }) })],
		["no clientSecret", "x6", provider({ config: config({ clientSecret: "" }) })],
		["no token URL", "x7", provider({ config: config({ tokenUrl: "" }) })],
		["a token URL that is not http(s)", "x8", provider({ config: config({ tokenUrl: "file:///etc/passwd" }) })],
		["no userinfo URL", "x9", provider({ config: config({ userInfoUrl: "" }) })],
		["no auth URL", "x10", provider({ config: config({ authUrl: "" }) })],
		["no identifier mapping", "x11", provider({ config: config({ fieldMapping: { identifier: "" } }) })],
		["scopes that are not strings", "x12", provider({ config: config({ scopes: [1] }) })],
		["an invalid identifierFilter", "x13", provider({ identifierFilter: "([a-z" })]
	])("%s: INVALID_ARGUMENT", async (_case, id, body) => {
		const res = await api("POST", `/identity-providers?identityProviderId=${id}`, body, admin());
		expect(res.status).toBe(400);
		expect(res.body.code).toBe(3);
	});

	test("GetIdentityProvider: signed-in callers; unknown is NOT_FOUND", async () => {
		expect((await api("GET", "/identity-providers/github")).status).toBe(401);
		const res = await api("GET", "/identity-providers/github", undefined, user());
		expect(res.status).toBe(200);
		expect((res.body.config as { oauth2Config: { clientSecret: string } }).oauth2Config.clientSecret).toBe("");
		expect((await api("GET", "/identity-providers/nope", undefined, user())).status).toBe(404);
	});

	test("UpdateIdentityProvider: admins only, top-level mask paths only", async () => {
		expect((await api("PATCH", "/identity-providers/github?updateMask=title", { title: "X" }, user())).status).toBe(403);
		expect((await api("PATCH", "/identity-providers/github", { title: "X" }, admin())).status).toBe(400);
		expect((await api("PATCH", "/identity-providers/github?updateMask=config.oauth2_config.client_id", { title: "X" }, admin())).status).toBe(400);
		expect((await api("PATCH", "/identity-providers/github?updateMask=name", { name: "x" }, admin())).status).toBe(400);
		expect((await api("PATCH", "/identity-providers/github?updateMask=type", { type: "TYPE_UNSPECIFIED" }, admin())).status).toBe(400);
		expect((await api("PATCH", "/identity-providers/nope?updateMask=title", { title: "X" }, admin())).status).toBe(404);
		const res = await api("PATCH", "/identity-providers/github?updateMask=title,identifierFilter", { title: "GitHub Corp", identifierFilter: "^corp-", config: config({ clientId: "ignored" }) }, admin());
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ title: "GitHub Corp", identifierFilter: "^corp-" });
		expect((res.body.config as { oauth2Config: { clientId: string } }).oauth2Config.clientId).toBe("client");
	});

	test("an updated config with an empty clientSecret keeps the stored one; a new one replaces it", async () => {
		const kept = await api("PATCH", "/identity-providers/github?updateMask=config", { config: config({ clientId: "client-2", clientSecret: "" }) }, admin());
		expect(kept.status).toBe(200);
		expect((kept.body.config as { oauth2Config: { clientId: string } }).oauth2Config.clientId).toBe("client-2");
		expect(await storedSecret("github")).toBe("very-secret");
		await api("PATCH", "/identity-providers/github?updateMask=config", { config: config({ clientSecret: "rotated" }) }, admin());
		expect(await storedSecret("github")).toBe("rotated");
		expect((await api("PATCH", "/identity-providers/github?updateMask=config", { config: config({ tokenUrl: "" }) }, admin())).status).toBe(400);
	});

	test("the list is in creation order", async () => {
		await api("POST", "/identity-providers?identityProviderId=zzz-last", provider({ title: "Last" }), admin());
		const names = ((await api("GET", "/identity-providers")).body.identityProviders as { name: string }[]).map(p => p.name);
		expect(names[0]).toBe("identity-providers/github");
		expect(names[names.length - 1]).toBe("identity-providers/zzz-last");
	});

	test("DeleteIdentityProvider: admins only; the last one stays while password sign-in is disallowed", async () => {
		expect((await api("DELETE", "/identity-providers/github", undefined, user())).status).toBe(403);
		for (const p of (await api("GET", "/identity-providers")).body.identityProviders as { name: string }[]) {
			if (p.name !== "identity-providers/github") expect((await api("DELETE", `/${p.name}`, undefined, admin())).status).toBe(200);
		}
		expect((await api("PATCH", "/instance/settings/GENERAL", { generalSetting: { disallowPasswordAuth: true } }, admin())).status).toBe(200);
		try {
			const refused = await api("DELETE", "/identity-providers/github", undefined, admin());
			expect(refused.status).toBe(400);
			expect(refused.body.code).toBe(9);
		} finally {
			await api("PATCH", "/instance/settings/GENERAL", { generalSetting: { disallowPasswordAuth: false } }, admin());
		}
		expect((await api("DELETE", "/identity-providers/github", undefined, admin())).status).toBe(200);
		expect((await api("GET", "/identity-providers/github", undefined, admin())).status).toBe(404);
		expect((await api("DELETE", "/identity-providers/github", undefined, admin())).status).toBe(404);
	});
});
