import { ok } from "../support/list-fixture.js";
import { usePopulatedApp } from "../support/populated-app.js";

/**
 * "A `name` in a request body is ignored where the path already identifies the resource"
 * (contract 1.4; upstream's REST gateway sets the body's name from the path): the user
 * operations of contract 16 and 17 update what their path names, whatever name the body holds.
 */

const { api, users: [alice, bob] } = usePopulatedApp(2);

/** A public address literal: accepted without a lookup, and never called (alice makes no memo). */
const PUBLIC_URL = "https://93.184.216.34/hooks/memos";
const OTHER_NAMES = ["users/user2/webhooks/abc", "users/user1/settings/TAGS", "users/user2/notifications/x", "memos/abc", "not a name"];

test("UpdateUserWebhook", async () => {
	const made = await ok(api.request<{ name: string }>("POST", "/users/user1/webhooks", { as: alice(), body: { url: PUBLIC_URL, displayName: "before" } }));
	for (const [i, name] of OTHER_NAMES.entries()) {
		const res = await api.request<{ name: string; displayName: string }>("PATCH", `/${made.name}`, { as: alice(), query: { updateMask: "display_name" }, body: { name, displayName: `after ${i}` } });
		expect({ name, status: res.status, body: res.body }).toMatchObject({ name, status: 200, body: { name: made.name, displayName: `after ${i}` } });
	}
});

test("UpdateUserSetting", async () => {
	for (const [i, name] of OTHER_NAMES.entries()) {
		const theme = `theme-${i}`;
		const res = await api.request<{ name: string; generalSetting: { theme: string } }>("PATCH", "/users/user1/settings/GENERAL", {
			as: alice(),
			query: { updateMask: "theme" },
			body: { name, generalSetting: { theme } }
		});
		expect({ name, status: res.status, body: res.body }).toMatchObject({ name, status: 200, body: { name: "users/user1/settings/GENERAL", generalSetting: { theme } } });
	}
});

test("UpdateUserNotification", async () => {
	await ok(api.create(alice(), { content: "hello @user2", visibility: "PUBLIC" }));
	const [notification] = (await ok(api.request<{ notifications: { name: string }[] }>("GET", "/users/user2/notifications", { as: bob() }))).notifications;
	for (const [i, name] of OTHER_NAMES.entries()) {
		const status = i % 2 === 0 ? "ARCHIVED" : "UNREAD";
		const res = await api.request<{ name: string; status: string }>("PATCH", `/${notification!.name}`, { as: bob(), query: { updateMask: "status" }, body: { name, status } });
		expect({ name, status: res.status, body: res.body }).toMatchObject({ name, status: 200, body: { name: notification!.name, status } });
	}
});
