import { observeItem, type HistogramItem, type Labels, type MoleculerMetric } from "./lean-metrics.js";

interface Item {
	value: number;
	timestamp: number;
}

/**
 * One series of a counter, gauge or histogram: its labels and key computed once, and its item
 * (the object the metric's snapshots read) kept, so that an update looks nothing up. Moleculer
 * updates an item in place, resets included; only `clear()` replaces the metric's values, after
 * which the series finds its item again. Moleculer's own code makes the item.
 */
export class Series {
	private readonly key: string;
	private values: Map<string, unknown> | undefined;
	private item: unknown;

	constructor(
		private readonly metric: MoleculerMetric,
		readonly labels: Labels
	) {
		this.key = metric.hashingLabels(labels);
	}

	private current(): unknown {
		if (this.values !== this.metric.values) {
			this.values = this.metric.values;
			this.item = undefined;
		}
		this.item ??= this.values.get(this.key);
		return this.item;
	}

	/** Counters and gauges: adds `delta` to the value. */
	add(delta: number, now: number): void {
		const item = this.current() as Item | undefined;
		if (item === undefined) {
			this.metric.increment?.(this.labels, delta, now);
			return;
		}
		item.value += delta;
		item.timestamp = now;
		this.metric.changed(item.value, this.labels, now);
	}

	/** Histograms (with lean-metrics.ts's observe): counts `value`. */
	observe(value: number, now: number): void {
		const item = this.current() as HistogramItem | undefined;
		const buckets = this.metric.buckets;
		if (item === undefined || buckets === undefined || buckets.length === 0) this.metric.observe?.(value, this.labels, now);
		else observeItem(this.metric, buckets, item, value, this.labels, now);
	}
}
