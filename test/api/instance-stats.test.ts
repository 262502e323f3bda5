import type { EmbeddedApp } from "../support/embedded-app.js";
import { authHeaders, startPopulatedApp, type Population } from "../support/users.js";

/** GET /api/v1/instance/stats (contract 4.11). */

let app: EmbeddedApp & Population;

beforeAll(async () => {
	app = await startPopulatedApp(2);
});

afterAll(async () => {
	await app?.stop();
});

async function stats(headers: Record<string, string> = {}) {
	const res = await fetch(`${app.baseUrl}/api/v1/instance/stats`, { headers });
	return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test("anonymous callers are UNAUTHENTICATED, users PERMISSION_DENIED", async () => {
	expect((await stats()).body).toEqual({ code: 16, message: "authentication required", details: [] });
	const denied = await stats(authHeaders(app.users[0]!));
	expect(denied.status).toBe(403);
	expect(denied.body.code).toBe(7);
});

test("admins get the counters of the owning services, the store's driver and sizes", async () => {
	const { status, body } = await stats(authHeaders(app.admin));
	expect(status).toBe(200);
	expect(body).toEqual({
		database: { driver: "nedb", sizeBytes: expect.stringMatching(/^(-1|\d+)$/) },
		localStorageBytes: expect.stringMatching(/^(-1|\d+)$/),
		generatedTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
		userCount: 3,
		memoCount: expect.any(Number),
		attachmentCount: expect.any(Number),
		attachmentBytes: expect.stringMatching(/^(-1|\d+)$/),
		spaceCount: expect.any(Number)
	});
});

test("the answer is cached: a repeated call within a minute is the same snapshot", async () => {
	const first = await stats(authHeaders(app.admin));
	const second = await stats(authHeaders(app.admin));
	expect(second.body.generatedTime).toBe(first.body.generatedTime);
});
