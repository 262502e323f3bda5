import { AsyncLocalStorage } from "node:async_hooks";
import type { Middleware } from "moleculer";
import type { Handler } from "./moleculer-middlewares.js";

/**
 * The request id of the action being served, kept in async-local storage so that every
 * log line written while serving it carries the id, whichever node writes it (Moleculer
 * propagates `ctx.requestID` across the transporter). The processes run with
 * `--experimental-async-context-frame` (Dockerfile): on async hooks, the storage costs every
 * promise a hook call, 15-20 % of a GetInstanceProfile's CPU.
 */
const store = new AsyncLocalStorage<{ requestId: string }>();

export function currentRequestId(): string | undefined {
	return store.getStore()?.requestId;
}


/** A call made while serving the same request (a nested local call) keeps the storage it runs in. */
function withRequestId(next: Handler): Handler {
	return ctx => (ctx.requestID && ctx.requestID !== store.getStore()?.requestId ? store.run({ requestId: ctx.requestID }, () => next(ctx)) : next(ctx));
}

export const RequestContextMiddleware: Middleware = {
	name: "RequestContext",
	localAction: withRequestId,
	localEvent: withRequestId
} as Middleware;
