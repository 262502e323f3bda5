import { usePopulatedApp } from "../support/populated-app.js";
import { describePromtool, metricsAddress, metricsUrl, promtool } from "../support/metrics.js";

/** Every process's /metrics by Prometheus's conventions, as promtool checks them. */
const { app, api, users: [alice] } = usePopulatedApp(1, { METRICS_ENABLED: "true", METRICS_PORT: "0" });

const sample = (text: string, name: string, labels: Record<string, string> = {}): number | undefined => {
	const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
	const line = text.split("\n").find(l => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && wanted.every(w => l.includes(w)));
	return line === undefined ? undefined : Number(line.split(" ").at(-1));
};

let text: string;
const bytes = Buffer.alloc(3000, 7);

beforeAll(async () => {
	const memo = await api.create(alice(), { content: "counted" });
	expect(memo.status).toBe(200);
	expect((await api.request("POST", `/${memo.body.name}/comments`, { as: alice(), body: { content: "a comment" } })).status).toBe(200);
	expect((await api.request("POST", "/attachments", { as: alice(), body: { filename: "a.bin", type: "application/octet-stream", content: bytes.toString("base64") } })).status).toBe(200);
	// The ai bulkhead's gauges appear once the action has been entered.
	await expect(app().node.broker.call("ai.transcribe", {})).rejects.toThrow();
	const res = await fetch(metricsUrl(app()));
	expect(res.status).toBe(200);
	expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
	text = await res.text();
});

test("the metrics server listens on HOST", () => {
	expect(metricsAddress(app()).address).toBe("127.0.0.1");
});

test("durations in seconds, snake_case label names, counters ending in _total, histograms without quantiles", () => {
	expect(text).toMatch(/^# TYPE moleculer_request_time_seconds histogram$/m);
	expect(text).not.toMatch(/moleculer_request_time[^_]/);
	expect(text).not.toContain("quantile=");
	expect(text).not.toMatch(/_rate[{ ]/);
	expect(text).not.toMatch(/[{,][a-z_]*[A-Z]\w*="/);
	expect(text).toMatch(/node_id="/);
	for (const [, name] of text.matchAll(/^# TYPE (\S+) counter$/gm)) expect(name).toMatch(/_total$/);
	// A request of a few milliseconds is now a fraction of a second, and the buckets are in seconds.
	expect(text).toMatch(/moleculer_request_time_seconds_bucket\{[^}]*le="0\.005"/);
});

test("process, event-loop and heap metrics of Node", () => {
	for (const name of ["process_cpu_seconds_total", "process_resident_memory_bytes", "nodejs_eventloop_lag_p99_seconds", "nodejs_heap_size_used_bytes"]) {
		expect({ name, value: sample(text, name) }).toEqual({ name, value: expect.any(Number) });
	}
	expect(text).toMatch(/^# TYPE nodejs_gc_duration_seconds histogram$/m);
});

test("business metrics: memos and comments created, attachment bytes stored, the ai queue", () => {
	expect(sample(text, "memos_created_total", { kind: "memo" })).toBe(1);
	expect(sample(text, "memos_created_total", { kind: "comment" })).toBe(1);
	expect(sample(text, "memos_attachment_stored_bytes_total")).toBe(bytes.length);
	expect(sample(text, "moleculer_request_bulkhead_queue_size", { action: "ai.transcribe" })).toBe(0);
});

describePromtool("promtool", () => {
	test("promtool check metrics finds nothing", () => {
		expect(promtool(["check", "metrics"], text)).toEqual({ code: 0, output: "" });
	});
});
