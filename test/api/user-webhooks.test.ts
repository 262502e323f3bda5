import type { Session } from "../support/users.js";
import { usePopulatedApp } from "../support/populated-app.js";

/**
 * Upstream's webhook operations (contract 17) over HTTP: CRUD, the signing secret, who may see
 * and change them, the WEBHOOKS user setting, and the request-forgery guard on `url` (here on,
 * as by default: public IP literals pass without a lookup, loopback and private ones do not).
 */

const { app, api, admin, users: [alice, bob] } = usePopulatedApp(2);

type Webhook = { name: string; url: string; displayName: string; createTime: string; updateTime: string; signingSecretSet: boolean };

const PUBLIC_URL = "https://93.184.216.34/hooks/memos";

async function create(as: Session, body: Record<string, unknown>, username = as.user.username) {
	return api.request<Webhook & { code?: number }>("POST", `/users/${username}/webhooks`, { as, body });
}

async function list(as: Session, username = as.user.username): Promise<Webhook[]> {
	const res = await api.request<{ webhooks: Webhook[] }>("GET", `/users/${username}/webhooks`, { as });
	expect(res.status).toBe(200);
	return res.body.webhooks;
}

async function secretOf(as: Session, name: string) {
	return api.request<{ signingSecret: string }>("GET", `/${name}:getSigningSecret`, { as });
}

test("create answers the webhook without its secret; a secret is generated, readable only through getSigningSecret", async () => {
	const res = await create(alice(), { url: `  ${PUBLIC_URL}  `, displayName: "ci" });
	expect(res.status).toBe(200);
	expect(res.body).toEqual({
		name: expect.stringMatching(/^users\/user1\/webhooks\/[A-Za-z0-9]{22}$/),
		url: PUBLIC_URL,
		displayName: "ci",
		createTime: expect.stringMatching(/Z$/),
		updateTime: res.body.createTime,
		signingSecretSet: true
	});
	expect(JSON.stringify(res.body)).not.toContain("whsec_");
	const secret = await secretOf(alice(), res.body.name);
	expect(secret.status).toBe(200);
	expect(secret.body.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
	expect(Buffer.from(secret.body.signingSecret.slice(6), "base64")).toHaveLength(32);
	expect(await list(alice())).toContainEqual(res.body);
});

test("a given secret is kept as given; a bad one is INVALID_ARGUMENT", async () => {
	const given = await create(alice(), { url: PUBLIC_URL, signingSecret: "my shared secret" });
	expect(given.status).toBe(200);
	expect((await secretOf(alice(), given.body.name)).body.signingSecret).toBe("my shared secret");
	for (const signingSecret of ["line\nbreak", "whsec_not base64!", "é"]) {
		const res = await create(alice(), { url: PUBLIC_URL, signingSecret });
		expect({ signingSecret, status: res.status, code: res.body.code }).toEqual({ signingSecret, status: 400, code: 3 });
	}
});

test("url: required, http(s), at most 2048 bytes, and never a loopback, private or link-local address", async () => {
	const refused = [
		"",
		"ftp://93.184.216.34/x",
		"not a url",
		`https://93.184.216.34/${"a".repeat(2048)}`,
		"http://127.0.0.1:8080/hook",
		"http://[::1]/hook",
		"http://10.1.2.3/hook",
		"http://192.168.0.10/hook",
		"http://169.254.169.254/latest/meta-data",
		"http://[::ffff:127.0.0.1]/hook",
		"http://localhost/hook"
	];
	for (const url of refused) {
		const res = await create(alice(), { url });
		expect({ url, status: res.status, code: res.body.code }).toEqual({ url, status: 400, code: 3 });
	}
	expect((await list(alice())).map(w => w.url)).not.toContain("http://127.0.0.1:8080/hook");
});

test("update changes the masked fields; without a mask it changes what the body gives, as upstream", async () => {
	const made = (await create(alice(), { url: PUBLIC_URL, displayName: "before" })).body;
	const secretBefore = (await secretOf(alice(), made.name)).body.signingSecret;
	const renamed = await api.request<Webhook>("PATCH", `/${made.name}`, { as: alice(), query: { updateMask: "displayName" }, body: { displayName: "after", url: "https://1.1.1.1/ignored" } });
	expect(renamed.status).toBe(200);
	expect(renamed.body).toMatchObject({ name: made.name, displayName: "after", url: PUBLIC_URL, createTime: made.createTime });
	const moved = await api.request<Webhook>("PATCH", `/${made.name}`, { as: alice(), query: { updateMask: "url,signing_secret" }, body: { url: "https://1.1.1.1/new", signingSecret: "rotated" } });
	expect(moved.body).toMatchObject({ url: "https://1.1.1.1/new", displayName: "after", signingSecretSet: true });
	expect((await secretOf(alice(), made.name)).body.signingSecret).not.toBe(secretBefore);
	expect((await secretOf(alice(), made.name)).body.signingSecret).toBe("rotated");
	const unmasked = await api.request<Webhook>("PATCH", `/${made.name}`, { as: alice(), body: { displayName: "again" } });
	expect(unmasked.body).toMatchObject({ url: "https://1.1.1.1/new", displayName: "again" });
	const toLoopback = await api.request("PATCH", `/${made.name}`, { as: alice(), query: { updateMask: "url" }, body: { url: "http://127.0.0.1/" } });
	expect(toLoopback.status).toBe(400);
	const unknownPath = await api.request("PATCH", `/${made.name}`, { as: alice(), query: { updateMask: "frobnicate" }, body: {} });
	expect(unknownPath.status).toBe(400);
	expect((await list(alice())).find(w => w.name === made.name)?.url).toBe("https://1.1.1.1/new");
});

test("an empty or missing signing secret never clears it: masked, a new one is generated; create with \"\" generates one too", async () => {
	const made = (await create(alice(), { url: PUBLIC_URL, signingSecret: "" })).body;
	expect(made.signingSecretSet).toBe(true);
	const first = (await secretOf(alice(), made.name)).body.signingSecret;
	expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
	for (const body of [{ signingSecret: "" }, { signingSecret: "   " }, {}, { signingSecret: null }]) {
		const before = (await secretOf(alice(), made.name)).body.signingSecret;
		const res = await api.request<Webhook>("PATCH", `/${made.name}`, { as: alice(), query: { updateMask: "signing_secret" }, body });
		expect({ body, status: res.status, set: res.body.signingSecretSet }).toEqual({ body, status: 200, set: true });
		const after = (await secretOf(alice(), made.name)).body.signingSecret;
		expect(after).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
		expect(after).not.toBe(before);
	}
	// Without a mask an empty secret is not given, so the secret stays (as upstream).
	const kept = (await secretOf(alice(), made.name)).body.signingSecret;
	expect((await api.request("PATCH", `/${made.name}`, { as: alice(), body: { displayName: "x", signingSecret: "" } })).status).toBe(200);
	expect((await secretOf(alice(), made.name)).body.signingSecret).toBe(kept);
});

test("delete removes it; a second delete and an unknown webhook are NOT_FOUND", async () => {
	const made = (await create(alice(), { url: PUBLIC_URL })).body;
	expect((await api.request("DELETE", `/${made.name}`, { as: alice() })).status).toBe(200);
	expect((await list(alice())).map(w => w.name)).not.toContain(made.name);
	expect((await api.request("DELETE", `/${made.name}`, { as: alice() })).status).toBe(404);
	expect((await secretOf(alice(), made.name)).status).toBe(404);
	expect((await api.request("PATCH", "/users/user1/webhooks/nope", { as: alice(), query: { updateMask: "display_name" }, body: {} })).status).toBe(404);
});

test("another user can neither see nor change a user's webhooks; an admin can; anonymous callers are UNAUTHENTICATED", async () => {
	const made = (await create(alice(), { url: PUBLIC_URL, displayName: "private" })).body;
	const denied = [
		await api.request("GET", "/users/user1/webhooks", { as: bob() }),
		await create(bob(), { url: PUBLIC_URL }, "user1"),
		await api.request("PATCH", `/${made.name}`, { as: bob(), query: { updateMask: "display_name" }, body: { displayName: "taken" } }),
		await api.request("DELETE", `/${made.name}`, { as: bob() }),
		await secretOf(bob(), made.name),
		await api.request("GET", "/users/user1/settings/WEBHOOKS", { as: bob() })
	];
	expect(denied.map(res => res.status)).toEqual([403, 403, 403, 403, 403, 403]);
	// Bob's own path does not reach Alice's webhook either.
	expect((await api.request("DELETE", `/users/user2/webhooks/${made.name.split("/").at(-1)}`, { as: bob() })).status).toBe(404);
	expect((await list(alice())).find(w => w.name === made.name)?.displayName).toBe("private");
	expect((await list(admin(), "user1")).map(w => w.name)).toContain(made.name);
	expect((await secretOf(admin(), made.name)).status).toBe(200);
	expect((await api.request("GET", "/users/user1/webhooks")).status).toBe(401);
	expect((await api.request("GET", "/users/nobody/webhooks", { as: admin() })).status).toBe(404);
	expect((await api.request("PATCH", `/${made.name}:frobnicate`, { as: alice(), query: { updateMask: "display_name" }, body: {} })).status).toBe(404);
});

test("a user has at most 20 webhooks (FAILED_PRECONDITION beyond)", async () => {
	for (let i = 0; i < 20; i++) expect((await create(admin(), { url: PUBLIC_URL, displayName: `hook ${i}` })).status).toBe(200);
	const refused = await create(admin(), { url: PUBLIC_URL, displayName: "one too many" });
	expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 400, code: 9 });
	expect(await list(admin())).toHaveLength(20);
});

test("the WEBHOOKS user setting lists the user's webhooks", async () => {
	const mine = await list(bob());
	expect(mine).toEqual([]);
	const made = (await create(bob(), { url: PUBLIC_URL, displayName: "setting" })).body;
	const setting = await api.request("GET", "/users/user2/settings/WEBHOOKS", { as: bob() });
	expect(setting.status).toBe(200);
	expect(setting.body).toEqual({ name: "users/user2/settings/WEBHOOKS", webhooksSetting: { webhooks: [made] } });
	const all = await api.request<{ settings: { name: string; webhooksSetting?: unknown }[] }>("GET", "/users/user2/settings", { as: bob() });
	expect(all.body.settings.find(s => s.name.endsWith("/WEBHOOKS"))?.webhooksSetting).toEqual({ webhooks: [made] });
});

describe("upstream v0.30.0's shapes (proto/api/v1/user_service.proto)", () => {
	// UserWebhook, ListUserWebhooksResponse and GetUserWebhookSigningSecretResponse in proto3 JSON names.
	const USER_WEBHOOK = ["name", "url", "displayName", "createTime", "updateTime", "signingSecret", "signingSecretSet"];

	test("answers hold upstream's fields only, and the OpenAPI document describes the operations with them", async () => {
		const made = (await create(alice(), { url: PUBLIC_URL, displayName: "shape" })).body;
		for (const key of Object.keys(made)) expect(USER_WEBHOOK).toContain(key);
		expect(Object.keys((await api.request("GET", "/users/user1/webhooks", { as: alice() })).body)).toEqual(["webhooks"]);
		expect(Object.keys((await secretOf(alice(), made.name)).body)).toEqual(["signingSecret"]);
		type Doc = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, { properties: Record<string, { readOnly?: boolean; writeOnly?: boolean }> }> } };
		const doc = (await (await fetch(`${app().baseUrl}/openapi.json`)).json()) as Doc;
		expect(Object.keys(doc.components.schemas.UserWebhook!.properties).sort()).toEqual([...USER_WEBHOOK].sort());
		expect(doc.components.schemas.UserWebhook!.properties.signingSecret).toMatchObject({ writeOnly: true });
		expect(doc.components.schemas.UserWebhook!.properties.signingSecretSet).toMatchObject({ readOnly: true });
		expect(Object.keys(doc.paths["/api/v1/users/{user}/webhooks"]!).sort()).toEqual(["get", "post"]);
		expect(Object.keys(doc.paths["/api/v1/users/{user}/webhooks/{webhook}"]!).sort()).toEqual(["delete", "patch"]);
		expect(Object.keys(doc.paths["/api/v1/users/{user}/webhooks/{webhook}:getSigningSecret"]!)).toEqual(["get"]);
	});
});
