import { startPopulatedApp, authHeaders, type Population } from "../support/users.js";
import type { EmbeddedApp } from "../support/embedded-app.js";

/** Contract 16: a `:verb` suffix on a user path is an operation, never part of a username. */
describe("custom methods on user paths", () => {
	let app: EmbeddedApp & Population;
	beforeAll(async () => {
		app = await startPopulatedApp(1);
	});
	afterAll(async () => {
		await app.stop();
	});

	async function request(method: string, path: string, token?: string): Promise<{ status: number; body: { code?: number; message?: string } }> {
		const res = await fetch(`${app.baseUrl}/api/v1${path}`, { method, headers: token === undefined ? {} : authHeaders(token) });
		return { status: res.status, body: (await res.json()) as { code?: number; message?: string } };
	}

	test.each([
		["GET", "/users/admin:frobnicate"],
		["PATCH", "/users/user1:frobnicate"],
		["DELETE", "/users/user1:"],
		["GET", "/memos/abc:frobnicate"]
	])("%s %s answers NOT_FOUND unknown operation, whoever asks", async (method, path) => {
		for (const token of [app.admin.accessToken, undefined, "not-a-token"]) {
			expect(await request(method, path, token)).toEqual({ status: 404, body: { code: 5, message: "unknown operation", details: [] } });
		}
	});

	test("a user path without a verb still names the user", async () => {
		const res = await request("GET", "/users/user1", app.admin.accessToken);
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ name: "users/user1" });
	});
});
