import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";

let app: EmbeddedApp;

beforeAll(async () => {
	app = await startEmbeddedApp();
});

afterAll(async () => {
	await app.stop();
});

describe("HTTP conventions (contract 1.1, 1.8)", () => {
	test("an unknown route answers 404 with the Status body", async () => {
		const res = await fetch(`${app.baseUrl}/api/v1/nope`);
		expect(res.status).toBe(404);
		expect(res.headers.get("content-type")).toMatch(/^application\/json/);
		expect(await res.json()).toEqual({ code: 5, message: "Not Found", details: [] });
	});

	test("an unknown route outside /api/v1 answers 404 too", async () => {
		const res = await fetch(`${app.baseUrl}/nothing/here`);
		expect(res.status).toBe(404);
		expect(await res.json()).toEqual({ code: 5, message: "Not Found", details: [] });
	});

	test("a known path with a wrong method answers 501 code 12", async () => {
		const res = await fetch(`${app.baseUrl}/api/v1/instance/profile`, { method: "DELETE" });
		expect(res.status).toBe(501);
		expect(await res.json()).toEqual({ code: 12, message: "Method Not Allowed", details: [] });
	});

	test("a client request id is echoed, an unusable one replaced", async () => {
		const kept = await fetch(`${app.baseUrl}/api/v1/instance/profile`, { headers: { "X-Request-ID": "req-123" } });
		expect(kept.headers.get("x-request-id")).toBe("req-123");
		const replaced = await fetch(`${app.baseUrl}/api/v1/instance/profile`, { headers: { "X-Request-ID": "bad id\twith spaces" } });
		expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
	});

	test("health and readiness are served on the public port", async () => {
		const live = await fetch(`${app.baseUrl}/healthz`);
		expect(live.status).toBe(200);
		expect(await live.json()).toEqual({ status: "ok" });
		const ready = await fetch(`${app.baseUrl}/readyz`);
		expect(ready.status).toBe(200);
		expect(await ready.json()).toEqual({ status: "ready" });
	});

	test("health and readiness are served on the health port", async () => {
		const base = `http://127.0.0.1:${app.node.healthPort}`;
		expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: "ok" });
		const ready = await fetch(`${base}/readyz`);
		expect(ready.status).toBe(200);
		expect(await ready.json()).toEqual({ status: "ready" });
	});
});
