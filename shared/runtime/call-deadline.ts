import { Errors, type Context, type Middleware, type ServiceBroker } from "moleculer";

type Handler = (ctx: Context) => Promise<unknown>;

/**
 * Ends a call at its time-out for the broker's own bookkeeping too. Moleculer's Timeout
 * middleware rejects the caller's promise but wraps the context tracker, so a call whose
 * answer never comes (its node died, its handler hangs) stayed tracked, and the next shutdown
 * waited the whole SHUTDOWN_TIMEOUT_MS for it; a remote call also stayed among the transit's
 * pending requests for good. This middleware sits inside the tracker: at the time-out (set by
 * the Timeout middleware before it runs) or on any failure, the context settles and its
 * pending request is dropped. A local handler past its time-out still runs to its end.
 */
function withDeadline(broker: ServiceBroker, next: Handler, remote: boolean): Handler {
	const release = (ctx: Context) => {
		if (remote) broker.transit?.removePendingRequest(ctx.id);
	};
	return ctx => {
		const call = next(ctx);
		const timeout = ctx.options.timeout;
		if (typeof timeout !== "number" || timeout <= 0) {
			return call.catch((err: unknown) => {
				release(ctx);
				throw err;
			});
		}
		// One promise, settled by the answer or the time-out, whichever comes first: a race of
		// two promises and a `finally` made three more on every call.
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				release(ctx);
				reject(new Errors.RequestTimeoutError({ action: ctx.action?.name ?? "", nodeID: ctx.nodeID ?? broker.nodeID }));
			}, timeout);
			call.then(
				result => {
					clearTimeout(timer);
					resolve(result);
				},
				(err: unknown) => {
					clearTimeout(timer);
					release(ctx);
					reject(err);
				}
			);
		});
	};
}

export const CallDeadlineMiddleware: Middleware = {
	name: "CallDeadline",
	localAction(this: ServiceBroker, next: Handler) {
		return withDeadline(this, next, false);
	},
	remoteAction(this: ServiceBroker, next: Handler) {
		return withDeadline(this, next, true);
	}
} as Middleware;
