import { ok } from "../support/list-fixture.js";
import { usePopulatedApp } from "../support/populated-app.js";
import { authHeaders } from "../support/users.js";

/**
 * Hostile input on the notification operations (contract 19 on contract 17's endpoints): each
 * answers the contract's code with a Status body, never a 5xx, and leaves the inbox as it was.
 */

const { app, api, users } = usePopulatedApp(2);
const [user1, user2] = users;

interface Notification {
	name: string;
	status: string;
}

let notification: Notification;

beforeAll(async () => {
	await ok(api.create(user1(), { content: "hello @user2", visibility: "PUBLIC" }));
	for (const content of ["hi @user1", "again @user1"]) await ok(api.create(user2(), { content, visibility: "PUBLIC" }));
	const page = await ok(api.request<{ notifications: Notification[] }>("GET", "/users/user2/notifications", { as: user2() }));
	notification = page.notifications[0]!;
});

async function raw(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; code: unknown }> {
	const res = await fetch(`${app().baseUrl}/api/v1${path}`, { method, headers: { ...authHeaders(user2()), ...headers }, ...(body === undefined ? {} : { body }) });
	const text = await res.text();
	return { status: res.status, code: text === "" ? undefined : (JSON.parse(text) as { code?: unknown }).code };
}

const inboxUnchanged = async () => {
	const page = await ok(api.request<{ notifications: Notification[] }>("GET", "/users/user2/notifications", { as: user2() }));
	expect(page.notifications).toEqual([notification]);
};

test("page sizes and tokens that are not what they should be are INVALID_ARGUMENT", async () => {
	const memos = await ok(api.request<{ nextPageToken: string }>("GET", "/memos", { as: user1(), query: { pageSize: "1" } }));
	const own = await ok(api.request<{ nextPageToken: string }>("GET", "/users/user1/notifications", { as: user1(), query: { pageSize: "1" } }));
	// Another operation's token, and another user's inbox's.
	const tokens = [memos.nextPageToken, own.nextPageToken, "%%%", "x".repeat(5000), "AAAA", "eyJ9"];
	expect(tokens.slice(0, 2)).not.toContain("");
	for (const pageToken of tokens) {
		const res = await api.request<{ code: number }>("GET", "/users/user2/notifications", { as: user2(), query: { pageToken } });
		expect({ pageToken: pageToken.slice(0, 20), status: res.status, code: res.body.code }).toEqual({ pageToken: pageToken.slice(0, 20), status: 400, code: 3 });
	}
	for (const pageSize of ["abc", "1e309", "1.5", "9223372036854775808"]) {
		const res = await api.request<{ code: number }>("GET", "/users/user2/notifications", { as: user2(), query: { pageSize } });
		expect({ pageSize, status: res.status, code: res.body.code }).toEqual({ pageSize, status: 400, code: 3 });
	}
	for (const query of ["pageToken=%ED%A0%80", "pageSize=%ED%A0%80", "pageToken=a&pageToken=b", "pageSize=1&pageSize=2"]) {
		expect({ query, ...(await raw("GET", `/users/user2/notifications?${query}`)) }).toEqual({ query, status: 400, code: 3 });
	}
	for (const pageSize of ["-1", "0", "100000"]) {
		expect((await api.request("GET", "/users/user2/notifications", { as: user2(), query: { pageSize } })).status).toBe(200);
	}
	await inboxUnchanged();
});

test("bad update masks and statuses are INVALID_ARGUMENT; the notification is unchanged", async () => {
	for (const updateMask of ["", "*", "status.x", "status,type", "name", "status,,status", "x".repeat(5000)]) {
		const res = await api.request<{ code: number }>("PATCH", `/${notification.name}`, { as: user2(), query: { updateMask }, body: { status: "ARCHIVED" } });
		expect({ updateMask: updateMask.slice(0, 20), status: res.status, code: res.body.code }).toEqual({ updateMask: updateMask.slice(0, 20), status: 400, code: 3 });
	}
	for (const updateMask of ["%ED%A0%80", "status&updateMask=status"]) {
		const answer = await raw("PATCH", `/${notification.name}?updateMask=${updateMask}`, '{"status":"ARCHIVED"}', { "Content-Type": "application/json" });
		expect({ updateMask, ...answer }).toEqual({ updateMask, status: 400, code: 3 });
	}
	for (const status of [null, 3, -1, 1.5, "archived", "\ud800", {}, [], true]) {
		const res = await api.request<{ code: number }>("PATCH", `/${notification.name}`, { as: user2(), query: { updateMask: "status" }, body: { status } });
		expect({ status, answer: res.status, code: res.body.code }).toEqual({ status, answer: 400, code: 3 });
	}
	await inboxUnchanged();
});

test("bodies that are not JSON, too deep, too large or hold lone surrogates are INVALID_ARGUMENT", async () => {
	const path = `/${notification.name}?updateMask=status`;
	const json = { "Content-Type": "application/json" };
	const bodies = [
		"{",
		"[]",
		'"ARCHIVED"',
		"null",
		`{"status":"ARCHIVED","x":"${"a".repeat(300 * 1024)}"}`,
		`${'{"a":'.repeat(70)}1${"}".repeat(70)}`,
		'{"status":"\\ud800"}',
		'{"\\udc00":1,"status":"ARCHIVED"}'
	];
	for (const body of bodies) expect({ body: body.slice(0, 30), ...(await raw("PATCH", path, body, json)) }).toEqual({ body: body.slice(0, 30), status: 400, code: 3 });
	expect(await raw("PATCH", path, "{}", { ...json, "Content-Encoding": "compress" })).toEqual({ status: 400, code: 3 });
	await inboxUnchanged();
});

test("notification ids that name nothing of the caller's are NOT_FOUND; undecodable ones INVALID_ARGUMENT", async () => {
	for (const id of ["$where", "a.b", "x".repeat(600), "%F0%9F%98%80", "0", "-"]) {
		for (const method of ["PATCH", "DELETE"]) {
			const answer = await raw(method, `/users/user2/notifications/${id}?updateMask=status`, method === "PATCH" ? '{"status":"ARCHIVED"}' : undefined, { "Content-Type": "application/json" });
			expect({ id: id.slice(0, 20), method, ...answer }).toEqual({ id: id.slice(0, 20), method, status: 404, code: 5 });
		}
	}
	for (const id of ["%ZZ", "%ED%A0%80", "%E6%97"]) {
		for (const method of ["PATCH", "DELETE"]) expect({ id, method, ...(await raw(method, `/users/user2/notifications/${id}?updateMask=status`, "{}")) }).toEqual({ id, method, status: 400, code: 3 });
		expect({ id, ...(await raw("GET", `/users/${id}/notifications`)) }).toEqual({ id, status: 400, code: 3 });
	}
	await inboxUnchanged();
});
