import { METRIC, type Middleware, type ServiceBroker, type Transit } from "moleculer";
import type { Labels, MoleculerMetric } from "./lean-metrics.js";
import { Series } from "./metric-series.js";
import { moleculerMiddleware, type Handler } from "./moleculer-middlewares.js";
import { gaugeTransitSizes } from "./transit-gauges.js";

type Publish = Transit["publish"];
type ActionDef = { name: string; service?: { fullName?: string } };

/** The series one action's calls from one caller update. */
interface CallSeries {
	labels: Labels;
	total: Series;
	active: Series;
	time: Series;
}

/**
 * Moleculer's request metrics (`moleculer_request_total`, `_active`, `_levels_total`,
 * `_time_seconds`, `_error_total`), the same series with the same labels and values, for less:
 * Moleculer's Metrics middleware builds five label objects per call, looks each metric up by
 * name, hashes the labels again for every update (twice for the active gauge) and reads the
 * clock through arrays; here the label sets and series are made once per action and caller.
 * The transit gauges are set to the current sizes (transit-gauges.ts) where Moleculer's
 * middleware adds the sizes at every packet published; every other part of Moleculer's
 * middleware (its registrations, events, transit counters) is its own.
 */
export function RequestMetricsMiddleware(broker: ServiceBroker): Middleware {
	const own = moleculerMiddleware("Metrics")(broker);
	if (!broker.isMetricsEnabled()) return own;
	const metric = (name: string) => broker.metrics.getMetric(name) as unknown as MoleculerMetric;
	const levels: Series[] = [];
	const levelSeries = (level: number) => (levels[level] ??= new Series(metric(METRIC.MOLECULER_REQUEST_LEVELS), { level }));

	function wrap(next: Handler, action: ActionDef, type: "local" | "remote"): Handler {
		const service = action.service?.fullName ?? null;
		const byCaller = new Map<unknown, CallSeries>();
		const seriesOf = (caller: unknown) => {
			let series = byCaller.get(caller);
			if (series === undefined) {
				const labels = { service, action: action.name, caller, type };
				series = {
					labels,
					total: new Series(metric(METRIC.MOLECULER_REQUEST_TOTAL), labels),
					active: new Series(metric(METRIC.MOLECULER_REQUEST_ACTIVE), labels),
					time: new Series(metric(METRIC.MOLECULER_REQUEST_TIME), labels)
				};
				byCaller.set(caller, series);
			}
			return series;
		};
		return ctx => {
			const series = seriesOf(ctx.caller);
			const now = Date.now();
			series.total.add(1, now);
			series.active.add(1, now);
			levelSeries(ctx.level).add(1, now);
			const start = performance.now();
			return next(ctx).then(
				result => {
					settle(series, start);
					return result;
				},
				(err: unknown) => {
					settle(series, start);
					countError(series.labels, err);
					throw err;
				}
			);
		};
	}

	function settle(series: CallSeries, start: number): void {
		const end = Date.now();
		series.time.observe(performance.now() - start, end);
		series.active.add(-1, end);
	}

	function countError(labels: Labels, err: unknown): void {
		const { name, code, type: errorType } = (err ?? {}) as { name?: unknown; code?: unknown; type?: unknown };
		broker.metrics.increment(METRIC.MOLECULER_REQUEST_ERROR_TOTAL, {
			...labels,
			errorName: err ? name : null,
			errorCode: err ? code : null,
			errorType: err ? errorType : null
		});
	}

	return {
		...own,
		created(this: unknown, created: ServiceBroker) {
			(own.created as (this: unknown, broker: ServiceBroker) => void).call(this, created);
			gaugeTransitSizes(created);
		},
		// Moleculer's typings have this hook return a promise; it returns the wrapped publish.
		transitPublish: ((next: Publish): Publish =>
			packet => {
				broker.metrics.increment(METRIC.MOLECULER_TRANSIT_PUBLISH_TOTAL, { type: packet.type });
				return next(packet);
			}) as unknown as Middleware["transitPublish"],
		localAction: (next: Handler, action: ActionDef) => wrap(next, action, "local"),
		remoteAction: (next: Handler, action: ActionDef) => wrap(next, action, "remote")
	} as Middleware;
}
