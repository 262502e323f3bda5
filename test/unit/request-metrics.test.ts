import { Errors, METRIC, ServiceBroker, type Middleware } from "moleculer";
import { leanMetrics } from "../../shared/runtime/lean-metrics.js";
import { RequestMetricsMiddleware } from "../../shared/runtime/request-metrics.js";

/**
 * RequestMetrics keeps the series Moleculer's own Metrics middleware keeps, with the same
 * labels and values, after the same calls: local and nested ones, from several callers and
 * levels, failed ones, and calls after a reset of the metrics.
 */
async function brokerWith(metrics: Middleware | string): Promise<ServiceBroker> {
	const broker = new ServiceBroker({
		nodeID: "node",
		logger: false,
		metrics: { enabled: true, reporter: [] },
		internalMiddlewares: false,
		middlewares: ["ErrorHandler", metrics]
	});
	leanMetrics(broker.metrics);
	broker.createService({
		name: "inner",
		actions: {
			ok: () => "ok",
			fail: () => {
				throw new Errors.MoleculerClientError("refused", 422, "REFUSED");
			},
			failBare: () => Promise.reject(new Error("bare"))
		}
	});
	broker.createService({
		name: "outer",
		actions: {
			twice: async ctx => [await ctx.call("inner.ok"), await ctx.call("inner.ok")],
			failing: ctx => ctx.call("inner.fail")
		}
	});
	await broker.start();
	return broker;
}

const NAMES = [
	METRIC.MOLECULER_REQUEST_TOTAL,
	METRIC.MOLECULER_REQUEST_ACTIVE,
	METRIC.MOLECULER_REQUEST_LEVELS,
	METRIC.MOLECULER_REQUEST_ERROR_TOTAL,
	METRIC.MOLECULER_REQUEST_TIME
];

/** What the exposition shows of a series (durations vary, so their sum and buckets are left out). */
function seriesOf(broker: ServiceBroker): Record<string, unknown> {
	return Object.fromEntries(
		NAMES.map(name => {
			const metric = broker.metrics.getMetric(name) as unknown as { snapshot(): Record<string, unknown>[] };
			const items = metric.snapshot().map(({ key, labels, value, count }) => ({ key, labels, value, count }));
			return [name, items.sort((a, b) => String(a.key).localeCompare(String(b.key)))];
		})
	);
}

async function exercise(broker: ServiceBroker): Promise<void> {
	await broker.call("inner.ok");
	await broker.call("outer.twice");
	await broker.call("outer.twice");
	await expect(broker.call("outer.failing")).rejects.toThrow("refused");
	await expect(broker.call("inner.failBare")).rejects.toThrow("bare");
	await Promise.all([broker.call("inner.ok"), broker.call("outer.twice")]);
	for (const name of NAMES) broker.metrics.getMetric(name)?.resetAll();
	await broker.call("outer.twice");
}

test("the same request series, labels and values as Moleculer's Metrics middleware", async () => {
	const own = await brokerWith(RequestMetricsMiddleware as unknown as Middleware);
	const moleculer = await brokerWith("Metrics");
	try {
		await exercise(own);
		await exercise(moleculer);
		const expected = seriesOf(moleculer);
		expect(seriesOf(own)).toEqual(expected);
		expect(expected[METRIC.MOLECULER_REQUEST_ERROR_TOTAL]).toHaveLength(3);
		expect(expected[METRIC.MOLECULER_REQUEST_TOTAL]).toHaveLength(6);
	} finally {
		await own.stop();
		await moleculer.stop();
	}
});

test("with metrics off, Moleculer's middleware as it is", () => {
	const broker = new ServiceBroker({ logger: false, metrics: { enabled: false } });
	const middleware = RequestMetricsMiddleware(broker);
	expect(middleware.name).toBe("Metrics");
	const next = () => Promise.resolve();
	expect(middleware.localAction?.call(broker, next, { name: "a" })).toBe(next);
});
