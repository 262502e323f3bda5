import { MetricReporters, ServiceBroker } from "moleculer";
import { leanMetrics, type Labels, type MoleculerMetric } from "../../shared/runtime/lean-metrics.js";
import { Series } from "../../shared/runtime/metric-series.js";

/**
 * The lean update paths keep what Moleculer's own metric types hold: the same series, values,
 * sums and cumulative bucket counts, after the same updates, resets included.
 */
function registries(): { lean: ServiceBroker["metrics"]; plain: ServiceBroker["metrics"] } {
	const make = () => new ServiceBroker({ logger: false, metrics: { enabled: true, reporter: [] } }).metrics;
	const lean = make();
	leanMetrics(lean);
	return { lean, plain: make() };
}

const LABELS = ["method", "route", "code"];
const updates = [
	{ method: "GET", route: "/a", code: "200" },
	{ method: "GET", route: "/a", code: "404" },
	{ method: "POST", route: "/a", code: 200 },
	{ method: "GET", route: undefined, code: null },
	{ method: "GET", route: "/a", code: "200" }
];

function snapshotOf(metrics: ServiceBroker["metrics"], name: string): unknown {
	const metric = metrics.getMetric(name) as unknown as { snapshot(): { key: string; timestamp?: number }[] };
	return metric.snapshot().map(({ timestamp: _timestamp, ...item }) => item);
}

test("counters and gauges: the same series and values", () => {
	const { lean, plain } = registries();
	for (const metrics of [lean, plain]) {
		metrics.register({ type: "counter", name: "c", labelNames: LABELS });
		metrics.register({ type: "gauge", name: "g", labelNames: LABELS });
		for (const labels of updates) {
			metrics.increment("c", labels);
			metrics.increment("g", labels, 3);
			metrics.decrement("g", labels);
		}
		metrics.increment("c", { method: "GET", route: { nested: true }, code: "200" });
	}
	expect(snapshotOf(lean, "c")).toEqual(snapshotOf(plain, "c"));
	expect(snapshotOf(lean, "g")).toEqual(snapshotOf(plain, "g"));
	expect(snapshotOf(lean, "c")).toHaveLength(5);
});

test.each([
	["fractional bounds", [0.005, 0.01, 0.1, 1, 2.5], [0.001, 0.005, 0.0051, 0.3, 2.5, 7]],
	["whole bounds", [1, 5, 10, 100, 5000], [0, 1, 4.2, 10, 99.9, 5000, 6000]]
])("histograms with %s: the same sums, counts and cumulative buckets, after a reset too", (_name, buckets, values) => {
	const { lean, plain } = registries();
	for (const metrics of [lean, plain]) {
		metrics.register({ type: "histogram", name: "h", labelNames: LABELS, buckets });
		for (const labels of updates) for (const value of values) metrics.observe("h", value, labels);
	}
	expect(snapshotOf(lean, "h")).toEqual(snapshotOf(plain, "h"));
	const bucketsOf = (metrics: ServiceBroker["metrics"]) => (snapshotOf(metrics, "h") as { buckets: Record<string, number> }[])[0]?.buckets;
	expect(bucketsOf(lean)).toEqual(Object.fromEntries(buckets.map(bound => [bound, 2 * values.filter(value => value <= bound).length])));

	for (const metrics of [lean, plain]) {
		metrics.reset("h", updates[0]);
		metrics.observe("h", buckets[1] as number, updates[0]);
	}
	expect(snapshotOf(lean, "h")).toEqual(snapshotOf(plain, "h"));
});

test("a series updated in place shows in the next snapshot, and is made again after the metric is cleared", () => {
	const { lean } = registries();
	lean.register({ type: "counter", name: "c", labelNames: LABELS });
	lean.register({ type: "histogram", name: "h", labelNames: LABELS, buckets: [1, 10] });
	const metric = (name: string) => lean.getMetric(name) as unknown as MoleculerMetric & { snapshot(): { value?: number; count?: number; buckets?: Record<string, number> }[]; clear(): void };
	const labels = updates[0] as Labels;
	const counted = new Series(metric("c"), labels);
	const timed = new Series(metric("h"), labels);
	for (const round of [1, 2]) {
		counted.add(1, Date.now());
		timed.observe(5, Date.now());
		expect(metric("c").snapshot()).toMatchObject([{ value: 1 }]);
		expect(metric("h").snapshot()).toMatchObject([{ count: 1, buckets: { 1: 0, 10: 1 } }]);
		counted.add(2, Date.now());
		timed.observe(0.5, Date.now());
		expect(metric("c").snapshot()).toMatchObject([{ value: 3 }]);
		expect(metric("h").snapshot()).toMatchObject([{ count: 2, buckets: { 1: 1, 10: 2 } }]);
		if (round === 1) for (const name of ["c", "h"]) metric(name).clear();
	}
});

test("a reporter told of changes is still told of each update", () => {
	const changes: [string, unknown][] = [];
	class Listening extends MetricReporters.Base {
		override metricChanged(metric: { name: string }, value: unknown): void {
			changes.push([metric.name, value]);
		}
	}
	const metrics = new ServiceBroker({ logger: false, metrics: { enabled: true, reporter: [new Listening({}) as never] } }).metrics;
	leanMetrics(metrics);
	metrics.register({ type: "counter", name: "c", labelNames: LABELS });
	metrics.register({ type: "histogram", name: "h", labelNames: LABELS, buckets: [1, 10] });
	const labels = updates[0] as Labels;
	new Series(metrics.getMetric("c") as unknown as MoleculerMetric, labels).add(2, Date.now());
	new Series(metrics.getMetric("h") as unknown as MoleculerMetric, labels).observe(5, Date.now());
	metrics.increment("c", labels);
	metrics.observe("h", 7, labels);
	expect(changes.filter(([name]) => name === "c" || name === "h")).toEqual([
		["c", 2],
		["h", 5],
		["c", 3],
		["h", 7]
	]);
});
