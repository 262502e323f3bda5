import type { IncomingMessage, ServerResponse } from "node:http";
import { MetricReporters, type MetricRegistry } from "moleculer";
import { Registry, collectDefaultMetrics } from "prom-client";
import { leanMetrics } from "./lean-metrics.js";

/**
 * Moleculer's metrics in Prometheus's conventions, plus Node's process, event-loop and GC
 * metrics (prom-client's defaults: `process_*`, `nodejs_*`), on one `/metrics`.
 *
 * Moleculer's own Prometheus reporter writes durations in milliseconds, camelCase label names,
 * quantiles and extra series (`_min`, `_mean`, `_rate`…) inside histograms and counters without
 * `_total`; this one writes base units (`_seconds`, `_bytes`), snake_case names and labels,
 * `_total` on every counter and plain histograms (buckets, `_sum`, `_count`).
 */

/** Moleculer's process and OS metrics are replaced by prom-client's standard ones. */
export const METRIC_EXCLUDES = ["process.**", "os.**", "moleculer.metrics.**"];

interface Snapshot {
	labels: Record<string, unknown>;
	value?: unknown;
	buckets?: Record<string, number>;
	count?: number;
	sum?: number;
}

interface StoredMetric {
	name: string;
	type: "counter" | "gauge" | "histogram" | "info";
	unit?: string;
	description?: string;
	snapshot(): Snapshot[];
}

/** Scale to the base unit and the suffix that names it. */
const UNITS: Record<string, { factor: number; suffix: string }> = {
	nanosecond: { factor: 1e-9, suffix: "seconds" },
	microsecond: { factor: 1e-6, suffix: "seconds" },
	millisecond: { factor: 1e-3, suffix: "seconds" },
	second: { factor: 1, suffix: "seconds" },
	byte: { factor: 1, suffix: "bytes" },
	kilobyte: { factor: 1024, suffix: "bytes" },
	megabyte: { factor: 1024 ** 2, suffix: "bytes" }
};

export const snakeCase = (name: string): string =>
	name
		.replace(/([a-z0-9])([A-Z])/g, "$1_$2")
		.replace(/[^A-Za-z0-9_]/g, "_")
		.replace(/_+/g, "_")
		.toLowerCase();

/** The exposed name of a Moleculer metric: `moleculer.request.time` (ms) → `moleculer_request_time_seconds`. */
export function prometheusName(name: string, type: string, unit: string | undefined): string {
	let base = snakeCase(name).replace(/_total$/, "");
	const suffix = unit === undefined ? undefined : UNITS[unit]?.suffix;
	if (suffix !== undefined) base = base.replace(new RegExp(`_${suffix}$`), "") + `_${suffix}`;
	if (type === "counter") return `${base}_total`;
	if (type === "info") return `${base}_info`;
	return base;
}

const escape = (value: unknown) => String(value).replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
const number = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? String(value) : "NaN");

function labelText(labels: Record<string, unknown>): string {
	const entries = Object.entries(labels).filter(([, v]) => v !== undefined && v !== null);
	return entries.length === 0 ? "" : `{${entries.map(([k, v]) => `${snakeCase(k)}="${escape(v)}"`).join(",")}}`;
}

/** One metric family in the text exposition format. */
function family(metric: StoredMetric, common: Record<string, unknown>): string[] {
	const snapshot = metric.snapshot();
	if (snapshot.length === 0) return [];
	const name = prometheusName(metric.name, metric.type, metric.unit);
	const factor = metric.unit === undefined ? 1 : (UNITS[metric.unit]?.factor ?? 1);
	const type = metric.type === "info" ? "gauge" : metric.type;
	const lines = [`# HELP ${name} ${(metric.description ?? metric.name).replace(/\n/g, " ")}`, `# TYPE ${name} ${type}`];
	for (const item of snapshot) {
		const labels = { ...common, ...item.labels };
		if (metric.type === "info") lines.push(`${name}${labelText({ ...labels, value: item.value })} 1`);
		else if (metric.type === "histogram") {
			// Integer-like keys come first in object order, so the bounds are sorted here.
			const buckets = Object.entries(item.buckets ?? {}).sort(([a], [b]) => Number(a) - Number(b));
			for (const [le, count] of buckets) lines.push(`${name}_bucket${labelText({ ...labels, le: Number(le) * factor })} ${number(count)}`);
			lines.push(`${name}_bucket${labelText({ ...labels, le: "+Inf" })} ${number(item.count)}`);
			lines.push(`${name}_sum${labelText(labels)} ${number((item.sum ?? 0) * factor)}`);
			lines.push(`${name}_count${labelText(labels)} ${number(item.count)}`);
		} else lines.push(`${name}${labelText(labels)} ${number(typeof item.value === "number" ? item.value * factor : item.value)}`);
	}
	return lines;
}

/**
 * On every series. Not `namespace`: Prometheus sets that one to the Kubernetes namespace of the
 * target and would rename ours.
 */
const commonLabels = (broker: { namespace: string; nodeID: string }) => ({ moleculer_namespace: broker.namespace, node_id: broker.nodeID });

/** Moleculer's Prometheus reporter (its HTTP server, port, path, includes/excludes) with this exposition. */
export class ConventionalPrometheusReporter extends MetricReporters.Prometheus {
	private readonly node = new Registry();

	constructor(opts: { host: string; port: number; path: string; excludes: string[] }) {
		// Moleculer drops the host from its options when the port is 0 (tests); the server still binds to HOST.
		super({ ...opts, defaultLabels: (registry: MetricRegistry) => commonLabels(registry.broker) });
		(this.opts as { host?: string }).host = opts.host;
	}

	override init(registry: MetricRegistry): void {
		// Before the broker and its middlewares register their metrics.
		leanMetrics(registry);
		super.init(registry);
		this.node.setDefaultLabels(commonLabels(registry.broker));
		collectDefaultMetrics({ register: this.node });
		// Gauges named like counters (the same counts stand, by type, in nodejs_active_handles and the like).
		for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) this.node.removeSingleMetric(name);
	}

	async render(): Promise<string> {
		const self = this as unknown as { registry: { store: Map<string, StoredMetric> }; defaultLabels: Record<string, unknown>; matchMetricName(name: string): boolean };
		const lines: string[] = [];
		for (const metric of self.registry.store.values()) {
			if (self.matchMetricName(metric.name)) lines.push(...family(metric, self.defaultLabels ?? {}));
		}
		return `${lines.join("\n")}\n${await this.node.metrics()}`;
	}

	override handler(req: IncomingMessage, res: ServerResponse): void {
		const path = (this.opts as { path: string }).path;
		if ((req.url ?? "").split("?")[0] !== path) {
			res.writeHead(404).end();
			return;
		}
		this.render().then(
			text => res.writeHead(200, { "Content-Type": this.node.contentType }).end(text),
			(err: unknown) => {
				(this as unknown as { logger: { error(...args: unknown[]): void } }).logger.error("metrics could not be rendered", err);
				res.writeHead(500).end();
			}
		);
	}
}
