export type Labels = Record<string, unknown>;

interface Item {
	value: number;
	timestamp: number;
}

/** The parts of Moleculer's counter, gauge and histogram metrics used here. */
export interface SeriesMetric {
	values: Map<string, Item>;
	hashingLabels(labels: Labels): string;
	increment(labels: Labels, value: number, timestamp: number): unknown;
	observe(value: number, labels: Labels, timestamp: number): unknown;
	changed(value: unknown, labels: Labels, timestamp: number): void;
}

/**
 * One series of a counter or gauge: its labels and key computed once, its value updated in
 * place; Moleculer's own code makes the series (again, after a reset of the metric).
 */
export class Series {
	private readonly key: string;

	constructor(
		private readonly metric: SeriesMetric,
		readonly labels: Labels
	) {
		this.key = metric.hashingLabels(labels);
	}

	add(delta: number, now: number): void {
		const item = this.metric.values.get(this.key);
		if (item === undefined) {
			this.metric.increment(this.labels, delta, now);
			return;
		}
		item.value += delta;
		item.timestamp = now;
		this.metric.changed(item.value, this.labels, now);
	}
}

