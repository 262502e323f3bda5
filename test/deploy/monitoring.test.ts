import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { startPopulatedApp, type Population } from "../support/users.js";
import type { EmbeddedApp } from "../support/embedded-app.js";
import { describePromtool, metricsUrl, promtool, seriesNames } from "../support/metrics.js";
import { K8S_DIR, parseYamlStream } from "./manifests.js";

/**
 * The alert rules, the Grafana dashboard and the KEDA queries ask only for series the services
 * expose (scraped from a running app after some traffic) or that Kubernetes' own exporters
 * provide; the rules pass promtool.
 */
const read = (file: string) => readFileSync(path.join(K8S_DIR, file), "utf8");
const rules = parseYamlStream(read("base/monitoring/alerts.yaml"))[0] as unknown as { spec: { groups: { name: string; rules: { expr: string; record?: string }[] }[] } };
const dashboard = JSON.parse(read("base/monitoring/memos-dashboard.json")) as { panels: { title: string; targets: { expr: string }[] }[] };
const scaledObjects = parseYamlStream(read("components/keda/scaled-objects.yaml")) as unknown as { spec: { triggers: { type: string; metadata: { query?: string } }[] } }[];

/** Series of kube-state-metrics and the kubelet, which every Prometheus on Kubernetes scrapes. */
const EXTERNAL = /^(kube_|kubelet_)/;
const PROMQL_WORDS = new Set(["sum", "by", "rate", "max", "min", "histogram_quantile", "min_over_time", "le", "namespace", "on", "without", "and", "or", "unless"]);

/** Every metric name a PromQL expression reads: its identifiers once strings, label matchers, groupings and ranges are gone, minus functions. */
function metricNames(expr: string): string[] {
	const bare = expr
		.replace(/"(?:[^"\\]|\\.)*"/g, '""')
		.replace(/\{[^}]*\}/g, "")
		.replace(/\b(by|without)\s*\([^)]*\)/g, "")
		.replace(/\[[^\]]*\]/g, "");
	return [...bare.matchAll(/\b([a-z_][a-z0-9_:]*)\b(?!\s*\()/g)].map(m => m[1] as string).filter(n => !PROMQL_WORDS.has(n) && n.includes("_") && !/^\$/.test(n));
}

let app: EmbeddedApp & Population;
let exposed: Set<string>;

beforeAll(async () => {
	app = await startPopulatedApp(1, { METRICS_ENABLED: "true", METRICS_PORT: "0" });
	const headers = { Authorization: `Bearer ${app.users[0]?.accessToken}`, "Content-Type": "application/json" };
	await fetch(`${app.baseUrl}/api/v1/memos`, { method: "POST", headers, body: JSON.stringify({ content: "x" }) });
	await fetch(`${app.baseUrl}/api/v1/memos`, { headers });
	await fetch(`${app.baseUrl}/api/v1/attachments`, { method: "POST", headers, body: JSON.stringify({ filename: "a.txt", content: Buffer.from("a").toString("base64") }) });
	const session = await fetch(`${app.baseUrl}/api/v1/attachments:upload`, { method: "POST", headers, body: JSON.stringify({ spec: { filename: "u.bin", size: "10" } }) });
	expect(session.status).toBe(200);
	await fetch(`${app.baseUrl}/api/v1/no/such/route`);
	await app.node.broker.call("ai.transcribe", {}).catch(() => undefined);
	await app.node.broker.call("memos.noSuchAction", {}).catch(() => undefined);
	exposed = seriesNames(await (await fetch(metricsUrl(app))).text());
});

afterAll(async () => {
	await app?.stop();
});

test("the extractor finds metric names and skips functions, labels and strings", () => {
	expect(metricNames('sum by (route) (rate(memos_http_requests_total{code=~"5..", route="a_b"}[5m])) / x_total')).toEqual(["memos_http_requests_total", "x_total"]);
});

test("every alert, recording rule, dashboard query and KEDA query reads series the services expose (or Kubernetes' exporters)", () => {
	const recorded = new Set(rules.spec.groups.flatMap(g => g.rules.map(r => r.record).filter((r): r is string => r !== undefined)));
	const queries = [
		...rules.spec.groups.flatMap(g => g.rules.map(r => ({ where: `rule in ${g.name}`, expr: r.expr }))),
		...dashboard.panels.flatMap(p => p.targets.map(t => ({ where: `panel ${p.title}`, expr: t.expr }))),
		...scaledObjects.flatMap(so => so.spec.triggers.filter(t => t.type === "prometheus").map(t => ({ where: "ScaledObject", expr: t.metadata.query as string })))
	];
	expect(queries.length).toBeGreaterThan(20);
	for (const { where, expr } of queries) {
		const names = metricNames(expr);
		expect({ where, names: names.length > 0 }).toEqual({ where, names: true });
		for (const name of names) {
			const known = exposed.has(name) || recorded.has(name) || EXTERNAL.test(name);
			expect({ where, name, known }).toEqual({ where, name, known: true });
		}
	}
});

test("the dashboard is a Grafana dashboard with a data source and namespace variable", () => {
	const raw = JSON.parse(read("base/monitoring/memos-dashboard.json")) as { uid: string; templating: { list: { name: string }[] } };
	expect(raw.uid).toBe("memos-overview");
	expect(raw.templating.list.map(v => v.name)).toEqual(["datasource", "namespace"]);
});

describePromtool("promtool", () => {
	test("promtool check rules passes the PrometheusRule's groups", () => {
		const file = path.join(mkdtempSync(path.join(os.tmpdir(), "memos-rules-")), "rules.yaml");
		writeFileSync(file, stringify({ groups: rules.spec.groups }));
		const result = promtool(["check", "rules", file]);
		expect(result.code).toBe(0);
		expect(result.output).toMatch(/SUCCESS: \d+ rules found/);
	});
});
