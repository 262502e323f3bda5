import type { CallingOptions, Context, EventSchemas, Service, ServiceBroker } from "moleculer";

/**
 * Typed references to the actions and events a service publishes in its contract module
 * (`services/<svc>/<svc>.contract.ts`). A name is written once, in its owner's contract;
 * callers, the gateway's route table and the owner's schema all take it from there, and the
 * type checker sees the params and the result of every call.
 */

/** An action `service.action` taking `P` and answering `R`; the types exist only for the checker. */
export interface ActionRef<P, R> {
	/** The full name, `service.action`, as Moleculer calls it. */
	readonly name: string;
	readonly service: string;
	/** The action's key in its service's schema. */
	readonly action: string;
	/** Never set: carries the params and result types. */
	readonly types?: { params: P; result: R };
}

/** Any action, whatever its types (the route table holds actions of every shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyActionRef = ActionRef<any, any>;

/** An event and its payload; `name` may be a wildcard pattern for handlers (`space.member.*`). */
export interface EventRef<P> {
	readonly name: string;
	/** Never set: carries the payload type. */
	readonly payload?: P;
}

type FullName = `${string}.${string}`;

export function defineAction<P, R>(name: FullName): ActionRef<P, R> {
	const dot = name.indexOf(".");
	return Object.freeze({ name, service: name.slice(0, dot), action: name.slice(dot + 1) });
}

/** A public operation (see `ApiAction`). */
export function defineApiAction(name: FullName): ApiAction {
	return defineAction<ApiParams, ApiAnswer>(name);
}

export function defineEvent<P>(name: FullName): EventRef<P> {
	return Object.freeze({ name });
}

/** Moleculer's own local event: a service of this process or of another node came or went. */
export const servicesChanged = defineEvent<{ localService: boolean }>("$services.changed");

/** The params of a public operation as the gateway hands them over (path, query and body merged); the action parses them. */
export type ApiParams = Record<string, unknown>;
/** The JSON answer of a public operation (its shape is in the API contract). */
export type ApiAnswer = Record<string, unknown>;
/** An operation of the route table: HTTP params in, a JSON message out. */
export type ApiAction = ActionRef<ApiParams, ApiAnswer>;

/**
 * The param that tells an action how many bytes its call stream carries: the gateway decodes
 * a base64 `bytes` field and sends the bytes as the call's stream, not inside the params.
 */
export const STREAM_LENGTH_PARAM = "$streamLength";

/**
 * The param holding the request headers a route hands to its action (RouteSpec.requestHeaders),
 * by lower-case name: protocols such as tus speak in headers, not in a JSON body.
 */
export const REQUEST_HEADERS_PARAM = "$headers";

/** What can call an action: a Context (the usual case, it carries meta and tracing) or the broker. */
export type Caller = Pick<Context, "call"> | Pick<ServiceBroker, "call">;
/** What can emit or broadcast an event. */
export type Emitter = Pick<Context, "emit" | "broadcast"> | Pick<ServiceBroker, "emit" | "broadcast">;

/** Params may be left out when the action takes none. */
type CallArgs<P> = undefined extends P ? [params?: P, opts?: CallingOptions] : [params: P, opts?: CallingOptions];

/** Calls `ref` with typed params and result; `opts` are Moleculer's (nodeID, stream, meta, timeout…). */
export function call<P, R>(caller: Caller, ref: ActionRef<P, R>, ...[params, opts]: CallArgs<P>): Promise<R> {
	return (caller as Pick<Context, "call">).call<R, P | undefined>(ref.name, params, opts);
}

/** Emits `ref` to one instance of each subscribing service (balanced). */
export function emit<P>(emitter: Emitter, ref: EventRef<P>, payload: P, opts?: Record<string, unknown>): Promise<void> {
	return (emitter as Pick<Context, "emit">).emit<P>(ref.name, payload, opts);
}

/** Broadcasts `ref` to every instance of every subscribing service. */
export function broadcast<P>(emitter: Emitter, ref: EventRef<P>, payload: P, opts?: Record<string, unknown>): Promise<void> {
	return (emitter as Pick<Context, "broadcast">).broadcast<P>(ref.name, payload, opts);
}

/**
 * A typed handler of `ref` for a schema's `events`:
 * `events: { ...onEvent(ref, function (this: MyService, ctx) {…}) }`; `this` is the service
 * as the handler's `this` annotation declares it.
 */
export function onEvent<P, This = Service>(ref: EventRef<P>, handler: (this: This, ctx: Context<P>) => void | Promise<void>): EventSchemas<This> {
	return { [ref.name]: handler as (ctx: Context<P>) => void | Promise<void> };
}
