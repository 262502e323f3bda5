import { Errors, METRIC, type ActionSchema, type Context, type Middleware, type ServiceBroker } from "moleculer";
import { moleculerMiddleware, type Handler, type MiddlewareFactory } from "./moleculer-middlewares.js";
import { RequestMetricsMiddleware } from "./request-metrics.js";

type ActionDef = ActionSchema & { name: string; timeout?: number; service?: { fullName?: string } };

type Tracked = Context & { service?: { _trackedContexts: Context[] }; broker: { _trackedContexts: Context[] } };

/** The list Moleculer's ContextTracker keeps `ctx` in while it runs: its service's, or the broker's for a remote call. */
function trackedIn(ctx: Context): Context[] {
	return ((ctx as Tracked).service ?? (ctx as Tracked).broker)._trackedContexts;
}

function untrack(list: Context[] | undefined, ctx: Context): void {
	if (list === undefined) return;
	const index = list.indexOf(ctx);
	if (index !== -1) list.splice(index, 1);
}

/**
 * A call's time-out, with one timer, and its tracking for a graceful stop, in one promise. It
 * does what Moleculer's Timeout middleware does (the default time-out, the start time for the
 * distributed deadline, the warning, the `moleculer_request_timeout_total` count,
 * RequestTimeoutError) and what that middleware missed. Moleculer's sits outside the context
 * tracker, so a call whose answer never came (its node died, its handler hangs) stayed tracked,
 * and the next shutdown waited the whole SHUTDOWN_TIMEOUT_MS for it; a remote call also stayed
 * among the transit's pending requests for good. Here, at the time-out, or on any failure, the
 * context is no longer tracked and its pending request is dropped. A local handler past its
 * time-out still runs to its end. The tracking is Moleculer's ContextTracker's (the same lists,
 * the same `tracking` option per call and per broker; its stop hooks wait on them, see
 * CallDeadlineMiddleware) done in this wrapper's promise: its own wrapper added two promises to
 * every call.
 * Moleculer's also signals a time-out to `ctx.params` when that is a stream, which in 0.15 it
 * never is (a call's stream is `ctx.stream`): that part is not copied.
 */
function withDeadline(broker: ServiceBroker, next: Handler, action: ActionDef, remote: boolean): Handler {
	const actionName = action.name;
	const service = action.service?.fullName ?? null;
	const tracking = broker.options.tracking?.enabled === true;
	const release = (ctx: Context) => {
		if (remote) broker.transit?.removePendingRequest(ctx.id);
	};
	const timedOut = (ctx: Context, timeout: number) => {
		release(ctx);
		broker.logger.warn(`Request '${actionName}' is timed out.`, { requestID: ctx.requestID, nodeID: ctx.nodeID, timeout });
		broker.metrics.increment(METRIC.MOLECULER_REQUEST_TIMEOUT_TOTAL, { service, action: actionName });
		return new Errors.RequestTimeoutError({ action: actionName, nodeID: ctx.nodeID ?? broker.nodeID });
	};
	return ctx => {
		ctx.options.timeout ??= action.timeout ?? broker.options.requestTimeout;
		const timeout = ctx.options.timeout;
		const timed = typeof timeout === "number" && timeout > 0;
		const tracked = tracking && (ctx.options.tracking ?? true) ? trackedIn(ctx) : undefined;
		if (!timed && tracked === undefined) {
			if (!remote) return next(ctx);
			return next(ctx).catch((err: unknown) => {
				release(ctx);
				throw err;
			});
		}
		if (timed) ctx.startHrTime ??= process.hrtime();
		tracked?.push(ctx);
		let call: Promise<unknown>;
		try {
			call = next(ctx);
		} catch (err) {
			untrack(tracked, ctx);
			throw err;
		}
		if (!timed) {
			// Tracked only (moleculer-web's root action has no time-out): settled by the answer.
			return call.then(
				result => {
					untrack(tracked, ctx);
					return result;
				},
				(err: unknown) => {
					untrack(tracked, ctx);
					release(ctx);
					throw err;
				}
			);
		}
		// One promise, settled by the answer or the time-out, whichever comes first.
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				untrack(tracked, ctx);
				reject(timedOut(ctx, timeout));
			}, timeout);
			call.then(
				result => {
					clearTimeout(timer);
					untrack(tracked, ctx);
					resolve(result);
				},
				(err: unknown) => {
					clearTimeout(timer);
					untrack(tracked, ctx);
					release(ctx);
					reject(err);
				}
			);
		});
	};
}

/**
 * CallDeadline, with Moleculer's ContextTracker for everything but the actions it wraps: the
 * lists of running contexts, the waits on them before a service or the broker stops, the
 * tracking of event handlers.
 */
export function CallDeadlineMiddleware(broker: ServiceBroker): Middleware {
	const { localAction: _local, remoteAction: _remote, ...tracker } = moleculerMiddleware("ContextTracker")(broker) as Middleware & Record<string, unknown>;
	const trackerCreated = tracker.created as (this: ServiceBroker, broker: ServiceBroker) => void;
	return {
		...tracker,
		name: "CallDeadline",
		created(this: ServiceBroker, created: ServiceBroker) {
			trackerCreated.call(this, created);
			if (!created.isMetricsEnabled()) return;
			created.metrics.register({
				name: METRIC.MOLECULER_REQUEST_TIMEOUT_TOTAL,
				type: METRIC.TYPE_COUNTER,
				labelNames: ["service", "action"],
				description: "Number of timed out requests",
				rate: true
			});
		},
		localAction(this: ServiceBroker, next: Handler, action: ActionDef) {
			return withDeadline(this, next, action, false);
		},
		remoteAction(this: ServiceBroker, next: Handler, action: ActionDef) {
			return withDeadline(this, next, action, true);
		}
	} as Middleware;
}

/**
 * Moleculer's middleware `name`, wrapping local actions only on a broker with a transporter.
 * Without one (the embedded run) an action has one endpoint, this node's: a circuit breaker
 * over it could only refuse every call for its half-open time without steering any to another
 * node, and a retry would call the same handler again after a failure that said no node could
 * take the call. Their wrappers cost every call three promises for that.
 */
function onlyWithTransporter(name: "CircuitBreaker" | "Retry"): MiddlewareFactory {
	return broker => {
		const own = moleculerMiddleware(name)(broker);
		const wrapLocal = own.localAction as (this: ServiceBroker, next: Handler, action: ActionDef) => Handler;
		return {
			...own,
			localAction(this: ServiceBroker, next: Handler, action: ActionDef) {
				return this.transit ? wrapLocal.call(this, next, action) : next;
			}
		} as Middleware;
	};
}

/**
 * Every broker's middlewares, innermost first: ours, then Moleculer's own in its order
 * (`INTERNAL_MIDDLEWARES` of service-broker.js, which BrokerOptions.internalMiddlewares: false
 * leaves out) with its Timeout and ContextTracker replaced by CallDeadline, its
 * Metrics by RequestMetrics (given as a factory, which Moleculer takes although its typings
 * name only objects), and its CircuitBreaker and Retry kept off local actions of an embedded
 * run (onlyWithTransporter). Its Fallback is left out: no action declares a fallback and no
 * call asks for a fallback response, and it wrapped every call in one more promise for nothing.
 */
export function brokerMiddlewares(own: Middleware[]): (Middleware | string)[] {
	const metrics = RequestMetricsMiddleware as unknown as Middleware;
	const deadline = CallDeadlineMiddleware as unknown as Middleware;
	const circuitBreaker = onlyWithTransporter("CircuitBreaker") as unknown as Middleware;
	const retry = onlyWithTransporter("Retry") as unknown as Middleware;
	return [...own, "ActionHook", "Validator", "Bulkhead", "Cacher", deadline, circuitBreaker, retry, "ErrorHandler", "Tracing", metrics, "Debounce", "Throttle"];
}
