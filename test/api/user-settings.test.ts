import type { EmbeddedApp } from "../support/embedded-app.js";
import { memoClient } from "../support/memos-client.js";
import { startPopulatedApp, type Population } from "../support/users.js";

/** BatchGetUsers and user settings (contract 16, upstream v0.30.0 shapes), over HTTP. */

type App = EmbeddedApp & Population;
let app: App;
const api = memoClient(() => app.baseUrl);
const user1 = () => app.users[0]!;
const user2 = () => app.users[1]!;

beforeAll(async () => {
	app = await startPopulatedApp(2);
});
afterAll(async () => {
	await app.stop();
});

describe("BatchGetUsers", () => {
	test("active users in the order asked; blank, repeated and unknown names left out; e-mail as GetUser shows it", async () => {
		const res = await api.request<{ users: { name: string; email: string }[] }>("POST", "/users:batchGet", { as: user1(), body: { usernames: ["user2", " ", "nobody", "user1", "user2"] } });
		expect(res.status).toBe(200);
		expect(res.body.users.map(u => u.name)).toEqual(["users/user2", "users/user1"]);
		const empty = await api.request<{ users: unknown[] }>("POST", "/users:batchGet", { as: user1(), body: {} });
		expect(empty.body).toEqual({ users: [] });
	});

	test("more than 100 names, or names that are not strings, are INVALID_ARGUMENT; anonymous callers on a private instance are UNAUTHENTICATED", async () => {
		const many = await api.request<{ code: number }>("POST", "/users:batchGet", { as: user1(), body: { usernames: Array.from({ length: 101 }, (_, i) => `u${i}`) } });
		expect({ status: many.status, code: many.body.code }).toEqual({ status: 400, code: 3 });
		const wrong = await api.request<{ code: number }>("POST", "/users:batchGet", { as: user1(), body: { usernames: "user1" } });
		expect(wrong.status).toBe(400);
		expect((await api.request("POST", "/users:batchGet", { as: null, body: { usernames: ["user1"] } })).status).toBe(401);
	});
});

describe("user settings", () => {
	test("never stored, each key reads as upstream's default; the list holds GENERAL, WEBHOOKS and TAGS", async () => {
		const general = await api.request("GET", "/users/user1/settings/GENERAL", { as: user1() });
		expect(general.body).toEqual({ name: "users/user1/settings/GENERAL", generalSetting: { locale: "en", memoVisibility: "PRIVATE", theme: "" } });
		const list = await api.request<{ settings: { name: string }[] }>("GET", "/users/user1/settings", { as: user1() });
		expect(list.body.settings).toEqual([
			general.body,
			{ name: "users/user1/settings/WEBHOOKS", webhooksSetting: { webhooks: [] } },
			{ name: "users/user1/settings/TAGS", tagsSetting: { tags: {} } }
		]);
		expect((await api.request("GET", "/users/user1/settings/general", { as: user1() })).body).toEqual(general.body);
	});

	test("only the user themself changes them; admins may read; others get PERMISSION_DENIED", async () => {
		expect((await api.request("GET", "/users/user1/settings/GENERAL", { as: app.admin })).status).toBe(200);
		expect((await api.request("GET", "/users/user1/settings/GENERAL", { as: user2() })).status).toBe(403);
		expect((await api.request("GET", "/users/user1/settings", { as: user2() })).status).toBe(403);
		const byAdmin = await api.request("PATCH", "/users/user1/settings/GENERAL", { as: app.admin, query: { updateMask: "theme" }, body: { generalSetting: { theme: "dark" } } });
		expect(byAdmin.status).toBe(403);
		expect((await api.request("GET", "/users/user1/settings/GENERAL", { as: null })).status).toBe(401);
	});

	test("GENERAL memoVisibility becomes the default visibility of the user's new memos, and only theirs", async () => {
		const updated = await api.request("PATCH", "/users/user1/settings/GENERAL", {
			as: user1(),
			query: { updateMask: "memo_visibility,locale" },
			body: { name: "users/user1/settings/GENERAL", generalSetting: { memoVisibility: "PROTECTED", locale: "fr", theme: "ignored" } }
		});
		expect(updated.status).toBe(200);
		expect(updated.body).toEqual({ name: "users/user1/settings/GENERAL", generalSetting: { locale: "fr", memoVisibility: "PROTECTED", theme: "" } });
		expect((await api.request("GET", "/users/user1/settings/GENERAL", { as: user1() })).body).toEqual(updated.body);

		expect((await api.create(user1(), { content: "no visibility named" })).body.visibility).toBe("PROTECTED");
		expect((await api.create(user1(), { content: "unspecified", visibility: "VISIBILITY_UNSPECIFIED" })).body.visibility).toBe("PROTECTED");
		expect((await api.create(user1(), { content: "named", visibility: "PUBLIC" })).body.visibility).toBe("PUBLIC");
		expect((await api.create(user2(), { content: "someone else" })).body.visibility).toBe("PRIVATE");
	});

	test.each([
		["GENERAL", "memo_visibility", { generalSetting: { memoVisibility: "SPACE" } }],
		["GENERAL", "memo_visibility", { generalSetting: { memoVisibility: "EVERYONE" } }],
		["GENERAL", "theme", { generalSetting: { theme: "t".repeat(65) } }],
		["GENERAL", "frobnicate", { generalSetting: {} }],
		["GENERAL", "", { generalSetting: { theme: "x" } }],
		["GENERAL", "theme", {}],
		["TAGS", "tags", { tagsSetting: { tags: { "(": {} } } }],
		["TAGS", "tags", { tagsSetting: { tags: { "": {} } } }],
		["TAGS", "tags", { tagsSetting: { tags: { work: { backgroundColor: { red: 2 } } } } }],
		["TAGS", "tags", { tagsSetting: { tags: { work: "red" } } }],
		["WEBHOOKS", "webhooks", { webhooksSetting: { webhooks: [] } }],
		["NOTIFICATIONS", "x", {}]
	])("UpdateUserSetting %s with mask %j and %j is INVALID_ARGUMENT", async (key, mask, body) => {
		const res = await api.request<{ code: number }>("PATCH", `/users/user2/settings/${key}`, { as: user2(), query: mask === "" ? {} : { updateMask: mask }, body });
		expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 3 });
	});

	test("TAGS are replaced whole with their display rules", async () => {
		const tags = { "work/.*": { backgroundColor: { red: 1, green: 0.5, blue: 0 }, blurContent: true }, idea: {} };
		const res = await api.request("PATCH", "/users/user2/settings/TAGS", { as: user2(), query: { updateMask: "tags" }, body: { tagsSetting: { tags } } });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ name: "users/user2/settings/TAGS", tagsSetting: { tags } });
		const replaced = await api.request("PATCH", "/users/user2/settings/TAGS", { as: user2(), query: { updateMask: "tags" }, body: { tagsSetting: { tags: { idea: {} } } } });
		expect(replaced.body).toEqual({ name: "users/user2/settings/TAGS", tagsSetting: { tags: { idea: {} } } });
	});
});
