import { MetricReporters, type MetricRegistry } from "moleculer";

/**
 * Moleculer's metric types made cheap to update, for every metric registered from here on
 * (the reporter hooks the registry before the broker and its middlewares register theirs).
 * A request updates about a dozen series (the broker's request metrics for each action call,
 * the gateway's HTTP metrics), and with Moleculer's own code each update cost 1-7 µs: a label
 * string built and hashed twice per gauge update, and a histogram's bucket counts kept in an
 * object keyed by the bounds, so every observation converted each bound to a property key.
 * What the metrics hold and how they are read (snapshots, the exposition) is unchanged.
 */

export type Labels = Record<string, unknown>;

export interface HistogramItem {
	timestamp: number;
	sum: number;
	count: number;
	lastValue: number | null;
	bucketValues: Record<number, number>;
}

/** The parts of Moleculer's metric types (counter, gauge, histogram) used here and by metric-series.ts. */
export interface MoleculerMetric {
	type: string;
	labelNames: string[];
	buckets?: number[];
	values: Map<string, unknown>;
	/** Whether the last snapshot is stale: `snapshot()` (the exposition) computes a new one only then. */
	dirty: boolean;
	clearDirty(): void;
	hashingLabels(labels?: Labels | null): string;
	increment?(labels: Labels, value: number, timestamp: number): unknown;
	observe?(value: number, labels?: Labels | null, timestamp?: number): unknown;
	changed(value?: unknown, labels?: Labels | null, timestamp?: number): void;
}

type Register = (opts: { type: string; name: string; rate?: boolean; quantiles?: boolean | number[] }) => MoleculerMetric | null;

/** Bucket counts of a histogram series, by bound index: `counts[i]` observations were ≤ `buckets[i]`. */
const COUNTS = Symbol("bucketCounts");

type CountedItem = HistogramItem & { [COUNTS]?: number[] };

/**
 * The series key of a label set, remembered by its values: the same values give the same key
 * without building a string. Label values are few and bounded (action names, routes, status
 * codes), as are the series Moleculer keeps for them; an object value (never one of ours)
 * takes Moleculer's own path.
 */
function rememberSeriesKeys(metric: MoleculerMetric): void {
	const names = metric.labelNames;
	if (names.length === 0) return;
	const hash = metric.hashingLabels.bind(metric);
	const root = new Map<unknown, unknown>();
	const last = names.length - 1;
	metric.hashingLabels = labels => {
		if (labels === null || typeof labels !== "object") return hash(labels);
		let node = root;
		for (let i = 0; i < last; i++) {
			const value = labels[names[i] as string];
			if (typeof value === "object" && value !== null) return hash(labels);
			let next = node.get(value) as Map<unknown, unknown> | undefined;
			if (next === undefined) {
				next = new Map();
				node.set(value, next);
			}
			node = next;
		}
		const value = labels[names[last] as string];
		if (typeof value === "object" && value !== null) return hash(labels);
		let key = node.get(value) as string | undefined;
		if (key === undefined) {
			key = hash(labels);
			node.set(value, key);
		}
		return key;
	};
}

/**
 * Keeps a histogram series' bucket counts in an array; `bucketValues` (what snapshots and
 * resets read and write) stays, as an accessor over it.
 */
function countBuckets(item: HistogramItem, buckets: number[]): number[] {
	const counts = buckets.map(bound => item.bucketValues[bound] ?? 0);
	Object.defineProperty(item, COUNTS, { value: counts });
	Object.defineProperty(item, "bucketValues", {
		enumerable: true,
		get: () => Object.fromEntries(buckets.map((bound, i) => [bound, counts[i]])),
		set: (values: Record<number, number>) => {
			buckets.forEach((bound, i) => (counts[i] = values[bound] ?? 0));
		}
	});
	return counts;
}

/**
 * Moleculer's observe for a series that exists (`item`, from the metric's values), with the
 * bucket counts in an array. `buckets` are the metric's bounds, sorted.
 */
export function observeItem(metric: MoleculerMetric, buckets: number[], item: HistogramItem, value: number, labels: Labels | null | undefined, timestamp: number | undefined): void {
	const counts = (item as CountedItem)[COUNTS] ?? countBuckets(item, buckets);
	item.timestamp = timestamp ?? Date.now();
	item.sum += value;
	item.count++;
	item.lastValue = value;
	// The bounds are sorted: a value falls into every bucket from the first bound above it on.
	for (let i = buckets.length - 1; i >= 0 && value <= (buckets[i] as number); i--) (counts[i] as number)++;
	metric.changed(value, labels, timestamp);
}

/** Moleculer's observe with the bucket counts in an array; a new series is made by Moleculer's own. */
function countedObserve(metric: MoleculerMetric): void {
	const buckets = metric.buckets;
	const observe = metric.observe?.bind(metric);
	if (buckets === undefined || buckets.length === 0 || observe === undefined) return;
	metric.observe = (value, labels, timestamp) => {
		const item = metric.values.get(metric.hashingLabels(labels)) as HistogramItem | undefined;
		if (item === undefined) {
			const created = observe(value, labels, timestamp) as HistogramItem;
			countBuckets(created, buckets);
			return created;
		}
		observeItem(metric, buckets, item, value, labels, timestamp);
		return item;
	};
}

const unchanged = (): void => undefined;

/**
 * When no reporter is told of changes (the Prometheus reporters read snapshots when scraped),
 * a change costs nothing and a snapshot is made afresh each time one is read. Moleculer's
 * `changed` marks the metric's snapshot stale and tells every reporter through the registry:
 * a chain of calls on each of a request's dozen updates, and a store into metric objects of
 * many shapes, which V8 makes megamorphic.
 */
function quietChanges(metric: MoleculerMetric, registry: MetricRegistry): void {
	const listening = (registry.reporter ?? []).some(reporter => reporter.metricChanged !== MetricReporters.Base.prototype.metricChanged);
	if (listening) return;
	metric.dirty = true;
	metric.changed = unchanged;
	metric.clearDirty = unchanged;
}

/**
 * Every metric registered from here on keeps no rate meter and no quantile window (the
 * exposition shows neither, and both cost on every update; Moleculer's rate meter, an interval
 * per series whose first tick turns a small-integer field into a double, also kept V8's
 * optimizer in an endless abort loop on the functions that update every metric), and takes
 * the cheap update and change paths above.
 */
export function leanMetrics(registry: MetricRegistry): void {
	const target = registry as unknown as { register: Register };
	const register = target.register.bind(registry);
	target.register = opts => {
		const metric = register({ ...opts, rate: false, quantiles: false });
		if (metric) {
			quietChanges(metric, registry);
			rememberSeriesKeys(metric);
			if (metric.type === "histogram") countedObserve(metric);
		}
		return metric;
	};
}
