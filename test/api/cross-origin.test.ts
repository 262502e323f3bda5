import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { usePopulatedApp } from "../support/populated-app.js";
import { authHeaders } from "../support/users.js";

/** OPTIONS, CORS and the headers of every JSON answer (contract 19). */

const { app, api, users: [alice] } = usePopulatedApp(1, { CORS_ORIGINS: "*,http://app.example" });

async function newMemo(): Promise<string> {
	const res = await api.request<{ name: string }>("POST", "/memos", { as: alice(), body: { content: "keep me", visibility: "PRIVATE" } });
	expect(res.status).toBe(200);
	return res.body.name;
}

function options(path: string, headers: Record<string, string> = {}): Promise<Response> {
	return fetch(`${app().baseUrl}${path}`, { method: "OPTIONS", headers });
}

describe("OPTIONS never runs the operation", () => {
	test("a preflight for DELETE with a bearer token leaves the memo in place", async () => {
		const memo = await newMemo();
		const res = await options(`/api/v1/${memo}`, { ...authHeaders(alice()), Origin: "http://other.example", "Access-Control-Request-Method": "DELETE" });
		expect(res.status).toBe(204);
		expect(await res.text()).toBe("");
		expect((await api.request("GET", `/${memo}`, { as: alice() })).status).toBe(200);
	});

	test("a plain OPTIONS answers 204 with the path's methods from the route table, and runs nothing", async () => {
		const memo = await newMemo();
		const res = await options(`/api/v1/${memo}`, authHeaders(alice()));
		expect(res.status).toBe(204);
		expect(res.headers.get("allow")).toBe("GET, PATCH, DELETE, OPTIONS");
		expect(res.headers.get("access-control-allow-methods")).toBeNull();
		expect((await options("/api/v1/memos")).headers.get("allow")).toBe("GET, POST, OPTIONS");
		expect((await options("/api/v1/auth/signin")).headers.get("allow")).toBe("POST, OPTIONS");
		expect((await api.request("GET", `/${memo}`, { as: alice() })).status).toBe(200);
	});

	test("a path no route has answers NOT_FOUND with the Status body", async () => {
		const res = await options("/api/v1/no/such/thing", { Origin: "http://other.example", "Access-Control-Request-Method": "GET" });
		expect(res.status).toBe(404);
		expect(await res.json()).toEqual({ code: 5, message: "Not Found", details: [] });
	});
});

describe("CORS (CORS_ORIGINS=*,http://app.example)", () => {
	test("a preflight from any origin: `*`, the path's methods, the headers it takes, 600 s, no credentials", async () => {
		const res = await options("/api/v1/memos", { Origin: "http://other.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type" });
		expect(res.status).toBe(204);
		expect({
			origin: res.headers.get("access-control-allow-origin"),
			methods: res.headers.get("access-control-allow-methods"),
			headers: res.headers.get("access-control-allow-headers"),
			maxAge: res.headers.get("access-control-max-age"),
			credentials: res.headers.get("access-control-allow-credentials"),
			vary: res.headers.get("vary")
		}).toEqual({
			origin: "*",
			methods: "GET, POST, OPTIONS",
			headers: "Authorization, X-Request-Id, traceparent, Content-Type, Content-Encoding",
			maxAge: "600",
			credentials: null,
			vary: "Origin"
		});
	});

	test("a named origin gets itself back, with credentials", async () => {
		const res = await options("/api/v1/auth/refresh", { Origin: "http://app.example", "Access-Control-Request-Method": "POST" });
		expect(res.headers.get("access-control-allow-origin")).toBe("http://app.example");
		expect(res.headers.get("access-control-allow-credentials")).toBe("true");
	});

	test("the file route's preflight allows the range headers", async () => {
		const res = await options("/file/attachments/abc/name.txt", { Origin: "http://other.example", "Access-Control-Request-Method": "GET" });
		expect(res.status).toBe(204);
		expect(res.headers.get("access-control-allow-methods")).toBe("GET, HEAD, OPTIONS");
		expect(res.headers.get("access-control-allow-headers")).toBe("Authorization, X-Request-Id, traceparent, Range, If-Range, If-None-Match");
	});

	test("actual answers, successes and errors, carry the origin headers; paths outside /api/v1 and /file do not", async () => {
		const ok = await fetch(`${app().baseUrl}/api/v1/memos`, { headers: { ...authHeaders(alice()), Origin: "http://other.example" } });
		expect(ok.status).toBe(200);
		expect(ok.headers.get("access-control-allow-origin")).toBe("*");
		expect(ok.headers.get("access-control-expose-headers")).toContain("Retry-After");
		const refused = await fetch(`${app().baseUrl}/api/v1/memos`, { headers: { Origin: "http://app.example" } });
		expect(refused.status).toBe(401);
		expect(refused.headers.get("access-control-allow-origin")).toBe("http://app.example");
		const health = await fetch(`${app().baseUrl}/healthz`, { headers: { Origin: "http://other.example" } });
		expect(health.headers.get("access-control-allow-origin")).toBeNull();
	});
});

describe("CORS with named origins only", () => {
	let named: EmbeddedApp;
	beforeAll(async () => {
		named = await startEmbeddedApp({ CORS_ORIGINS: "http://app.example" });
	});
	afterAll(async () => {
		await named.stop();
	});

	test("another origin gets no CORS headers, on the preflight and on the answer", async () => {
		const preflight = await fetch(`${named.baseUrl}/api/v1/instance/profile`, { method: "OPTIONS", headers: { Origin: "http://evil.example", "Access-Control-Request-Method": "GET" } });
		expect(preflight.status).toBe(204);
		expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
		expect(preflight.headers.get("access-control-allow-methods")).toBeNull();
		const res = await fetch(`${named.baseUrl}/api/v1/instance/profile`, { headers: { Origin: "http://evil.example" } });
		expect(res.status).toBe(200);
		expect(res.headers.get("access-control-allow-origin")).toBeNull();
		expect(res.headers.get("vary")).toBe("Origin");
	});
});

describe("headers of every JSON answer (contract 19)", () => {
	test.each([
		["a success", "/api/v1/instance/profile", 200],
		["an error", "/api/v1/memos", 401],
		["an unknown path", "/api/v1/nothing", 404],
		["the liveness probe", "/healthz", 200]
	])("%s: nosniff and no-store", async (_what, path, status) => {
		const res = await fetch(`${app().baseUrl}${path}`);
		expect(res.status).toBe(status);
		expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
		expect(res.headers.get("x-content-type-options")).toBe("nosniff");
		expect(res.headers.get("cache-control")).toBe("no-store");
	});
});
