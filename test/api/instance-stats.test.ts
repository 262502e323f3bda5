import { startPopulatedApp, type Population, type Session } from "../support/users.js";
import type { EmbeddedApp } from "../support/embedded-app.js";
import { memoClient } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

/** GET /api/v1/instance/stats (contract 4.11). */

const { api, admin, users: [alice, bob] } = usePopulatedApp(2);

async function ok<T = Record<string, unknown>>(answer: Promise<{ status: number; body: T; text: string }>): Promise<T> {
	const res = await answer;
	if (res.status !== 200) throw new Error(`answered ${res.status}: ${res.text}`);
	return res.body;
}

const stats = (as: Session | null = admin()) => api.request("GET", "/instance/stats", { as });

/**
 * A known population, made before the first (cached) read: 3 users; memos of every kind the
 * count covers or leaves out; two attachments of 5 and 7 bytes; two spaces, one deleted again.
 */
beforeAll(async () => {
	await ok(api.create(alice(), { content: "normal" }));
	const archived = await ok(api.create(alice(), { content: "archived" }));
	await ok(api.update(alice(), archived.name, "state", { state: "ARCHIVED" }));
	const parent = await ok(api.create(bob(), { content: "parent", visibility: "PUBLIC" }));
	await ok(api.request("POST", `/${parent.name}/comments`, { as: alice(), body: { content: "a comment" } }));
	const softDeleted = await ok(api.create(bob(), { content: "soft-deleted" }));
	await ok(api.remove(bob(), softDeleted.name));
	const purged = await ok(api.create(bob(), { content: "purged" }));
	await ok(api.remove(bob(), purged.name, "true"));
	await ok(api.request("POST", "/attachments", { as: alice(), body: { filename: "a.txt", content: Buffer.from("12345").toString("base64") } }));
	await ok(api.request("POST", "/attachments", { as: bob(), body: { filename: "b.txt", content: Buffer.from("1234567").toString("base64") } }));
	await ok(api.request("POST", "/spaces", { as: alice(), body: { displayName: "Kept" }, query: { spaceId: "kept" } }));
	await ok(api.request("POST", "/spaces", { as: bob(), body: { displayName: "Gone" }, query: { spaceId: "gone" } }));
	await ok(api.request("DELETE", "/spaces/gone", { as: bob() }));
});

test("anonymous callers are UNAUTHENTICATED, users PERMISSION_DENIED", async () => {
	expect((await stats(null)).body).toEqual({ code: 16, message: "authentication required", details: [] });
	const denied = await stats(alice());
	expect(denied.status).toBe(403);
	expect(denied.body.code).toBe(7);
});

test("admins get the exact counters of the owning services, the store's driver and sizes", async () => {
	const { status, body } = await stats();
	expect(status).toBe(200);
	expect(body).toEqual({
		database: { driver: "nedb", sizeBytes: expect.stringMatching(/^\d+$/) },
		localStorageBytes: "12",
		generatedTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
		userCount: 3,
		// normal, archived, parent and the comment; not the soft-deleted nor the purged memo
		memoCount: 4,
		attachmentCount: 2,
		attachmentBytes: "12",
		spaceCount: 1
	});
});

test("the answer is cached: a repeated call within a minute is the same snapshot", async () => {
	const first = await ok(stats());
	await ok(api.create(alice(), { content: "after the snapshot" }));
	const second = await ok(stats());
	expect(second).toEqual(first);
});

describe("an owner without counters", () => {
	let other: EmbeddedApp & Population;

	beforeAll(async () => {
		other = await startPopulatedApp(0);
	});

	afterAll(async () => {
		await other?.stop();
	});

	test("fails the page as UNAVAILABLE instead of reading as 0", async () => {
		const memos = other.node.broker.getLocalService("memos");
		if (!memos) throw new Error("the embedded app has no memos service");
		await other.node.broker.destroyService(memos);
		const res = await memoClient(other.baseUrl).request("GET", "/instance/stats", { as: other.admin });
		expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: 14 });
	});
});
