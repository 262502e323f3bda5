import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServiceBroker } from "moleculer";
import type { MoleculerMetric } from "../../shared/runtime/lean-metrics.js";
import { Series } from "../../shared/runtime/metric-series.js";
import type { AnswerObserver } from "./answered-requests.js";
import type { RouteSpec } from "./route-spec.js";

/**
 * The gateway's HTTP metrics (contract 13), exported by the broker's Prometheus reporter as
 * `memos_http_requests_total{method,route,code}` and `memos_http_request_duration_seconds`.
 */
export const HTTP_REQUESTS_TOTAL = "memos.http.requests.total";
export const HTTP_REQUEST_DURATION = "memos.http.request.duration.seconds";
const LARGE_BODIES = "memos.http.large.bodies.in.flight";
const SSE_STREAMS = "memos.sse.streams.open";
const SSE_SLOW_CLOSED = "memos.sse.streams.slow.closed.total";

const LABELS = ["method", "route", "code"];
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];
const KNOWN_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

type RoutedRequest = IncomingMessage & { $alias?: { fullPath?: string; spec?: RouteSpec } };

/**
 * The route template, never the concrete path, so ids do not multiply the series: the
 * contract path of an API operation (`/api/v1/memos/{memo}`), the alias of another route, or
 * `unmatched` when no route took the request.
 */
export function routeLabel(req: RoutedRequest): string {
	return req.$alias?.spec?.path ?? req.$alias?.fullPath ?? "unmatched";
}

/** Registers the metrics; what counts each request the gateway's HTTP server answers (none with metrics off). */
export function httpMetrics(broker: ServiceBroker): AnswerObserver | undefined {
	if (!broker.isMetricsEnabled()) return undefined;
	broker.metrics.register({ type: "counter", name: HTTP_REQUESTS_TOTAL, labelNames: LABELS, description: "HTTP requests answered by the gateway" });
	broker.metrics.register({
		type: "histogram",
		name: HTTP_REQUEST_DURATION,
		labelNames: LABELS,
		buckets: BUCKETS,
		unit: "seconds",
		description: "Time from request to the end of the response"
	});
	const total = broker.metrics.getMetric(HTTP_REQUESTS_TOTAL) as unknown as MoleculerMetric;
	const duration = broker.metrics.getMetric(HTTP_REQUEST_DURATION) as unknown as MoleculerMetric;
	// The label set and series of each route, method and status, made once: by route, then by
	// a number for the method and status (no string built per request).
	const series = new Map<string, Map<number, { counted: Series; timed: Series }>>();
	return (req: RoutedRequest, res: ServerResponse, seconds: number) => {
		const known = req.method === undefined ? -1 : KNOWN_METHODS.indexOf(req.method);
		const route = routeLabel(req);
		let byRoute = series.get(route);
		if (byRoute === undefined) {
			byRoute = new Map();
			series.set(route, byRoute);
		}
		const key = res.statusCode * (KNOWN_METHODS.length + 1) + known + 1;
		let answered = byRoute.get(key);
		if (answered === undefined) {
			const labels = { method: known < 0 ? "OTHER" : KNOWN_METHODS[known], route, code: String(res.statusCode) };
			answered = { counted: new Series(total, labels), timed: new Series(duration, labels) };
			byRoute.set(key, answered);
		}
		const now = Date.now();
		answered.counted.add(1, now);
		answered.timed.observe(seconds, now);
	};
}

function gauge(broker: ServiceBroker, name: string, description: string): (value: number) => void {
	if (!broker.isMetricsEnabled()) return () => undefined;
	broker.metrics.register({ type: "gauge", name, description });
	broker.metrics.set(name, 0);
	return value => broker.metrics.set(name, value);
}

/** `memos_http_large_bodies_in_flight`: the large-body slots taken (body-limits.ts); a setter for them. */
export function largeBodiesGauge(broker: ServiceBroker): (inUse: number) => void {
	return gauge(broker, LARGE_BODIES, "Request bodies over 1 MiB the gateway is serving");
}

/**
 * `memos_sse_streams_open` (a setter for it) and `memos_sse_streams_slow_closed_total` (a
 * counting function): the live streams of this gateway (sse-hub.ts).
 */
export function sseMetrics(broker: ServiceBroker): { open: (count: number) => void; slowClosed: () => void } {
	const open = gauge(broker, SSE_STREAMS, "Live streams (GET /api/v1/sse) this gateway holds");
	if (!broker.isMetricsEnabled()) return { open, slowClosed: () => undefined };
	broker.metrics.register({ type: "counter", name: SSE_SLOW_CLOSED, description: "Live streams closed because their client did not read" });
	// Exposed at 0 from the start, so that a rate over it exists before the first slow client.
	broker.metrics.increment(SSE_SLOW_CLOSED, undefined, 0);
	return { open, slowClosed: () => broker.metrics.increment(SSE_SLOW_CLOSED) };
}
