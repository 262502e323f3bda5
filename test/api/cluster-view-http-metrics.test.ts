import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { metricsUrl as metricsUrlOf } from "../support/metrics.js";

/** The gateway's HTTP metrics (contract 13) as Prometheus scrapes them from the metrics port. */
describe("gateway HTTP metrics", () => {
	let app: EmbeddedApp;
	let metricsUrl: string;

	beforeAll(async () => {
		app = await startEmbeddedApp({ METRICS_ENABLED: "true", METRICS_PORT: "0" });
		metricsUrl = metricsUrlOf(app);
	});
	afterAll(async () => {
		await app?.stop();
	});

	const sample = (text: string, name: string, labels: Record<string, string>): number | undefined => {
		const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
		const line = text.split("\n").find(l => l.startsWith(`${name}{`) && wanted.every(w => l.includes(w)));
		return line === undefined ? undefined : Number(line.split(" ").at(-1));
	};

	test("counts requests by method, route template and status code, with a duration histogram", async () => {
		expect((await fetch(`${app.baseUrl}/api/v1/instance/profile`)).status).toBe(200);
		expect((await fetch(`${app.baseUrl}/api/v1/instance/profile`)).status).toBe(200);
		const memo = await fetch(`${app.baseUrl}/api/v1/memos/some-memo-id`);
		await memo.arrayBuffer();
		expect((await fetch(`${app.baseUrl}/no/such/route`)).status).toBe(404);

		const res = await fetch(metricsUrl);
		expect(res.status).toBe(200);
		const text = await res.text();
		expect(text).toMatch(/# TYPE memos_http_requests_total counter/);
		expect(text).toMatch(/# TYPE memos_http_request_duration_seconds histogram/);
		expect(sample(text, "memos_http_requests_total", { method: "GET", route: "/api/v1/instance/profile", code: "200" })).toBe(2);
		expect(sample(text, "memos_http_requests_total", { method: "GET", route: "/api/v1/memos/{memo}", code: String(memo.status) })).toBe(1);
		expect(sample(text, "memos_http_requests_total", { method: "GET", route: "unmatched", code: "404" })).toBe(1);
		expect(sample(text, "memos_http_request_duration_seconds_bucket", { method: "GET", route: "/api/v1/instance/profile", code: "200", le: "+Inf" })).toBe(2);
		expect(text).not.toContain("some-memo-id");
	});
});
