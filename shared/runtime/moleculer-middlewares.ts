import * as moleculer from "moleculer";
import type { Context, Middleware, ServiceBroker } from "moleculer";

/** A call's handler as middlewares wrap it. */
export type Handler = (ctx: Context) => Promise<unknown>;

export type MiddlewareFactory = (broker: ServiceBroker) => Middleware;

/** The middlewares of Moleculer's own that ours wrap, narrow or replace. */
type OwnMiddleware = "CircuitBreaker" | "Retry" | "ContextTracker" | "Metrics";

/** Moleculer's own middleware `name`, as its factory (Moleculer exports them; its typings do not). */
export function moleculerMiddleware(name: OwnMiddleware): MiddlewareFactory {
	return (moleculer as unknown as { Middlewares: Record<OwnMiddleware, MiddlewareFactory> }).Middlewares[name];
}
