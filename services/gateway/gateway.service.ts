import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import ApiGateway from "moleculer-web";
import { signedIn, type Caller, type RequestMeta } from "../../shared/caller.js";
import { REQUEST_HEADERS_PARAM, call, onEvent } from "../../shared/contract.js";
import { ServiceError, unauthenticated } from "../../shared/errors.js";
import { refuseLoneSurrogates } from "../../shared/free-form.js";
import { IDEMPOTENT_RETRIES } from "../../shared/runtime/call-failures.js";
import { liveness, readiness } from "../../shared/runtime/health-server.js";
import { drainOnShutdown } from "../../shared/runtime/http-drain.js";
import { errorLog } from "../../shared/runtime/log-error.js";
import { readinessChecks } from "../../shared/runtime/readiness.js";
import { nothingQueuedToSend } from "../../shared/runtime/send-queue.js";
import { InstanceSettingViewsMixin, type InstanceSettingsMethods } from "../../shared/settings/instance-settings.mixin.js";
import type { ApiCompat } from "../../shared/runtime/config.js";
import { resourcesOf } from "../../shared/runtime/resources.js";
import { parseTraceparent, type ParentSpan } from "../../shared/runtime/tracing.js";
import { clearRefreshCookie, isSecureRequest, readRefreshCookie, type CookieMeta } from "../../shared/refresh-cookie.js";
import { apiDocsAssetAlias, apiDocsPageAlias, openApiAlias } from "./api-docs.js";
import { authEvents, hashPat } from "../auth/auth.contract.js";
import { memoEvents, memosActions, type MemoChangeEvent } from "../memos/memos.contract.js";
import { MAX_CHUNK_BYTES } from "../attachments/attachments.contract.js";
import { anonymousOnPrivateInstance } from "./anonymous-access.js";
import { avatarRouteAlias } from "./avatar-route.js";
import { VouchedCallers, bearerToken } from "./bearer.js";
import { clientAddressOf } from "./client-address.js";
import { clusterViewAlias } from "./cluster-view.js";
import { refuseUnknownCustomMethod } from "./custom-method.js";
import { fileRouteAlias } from "./file-route.js";
import { httpMetrics, largeBodiesGauge, sseMetrics } from "./http-metrics.js";
import { SseFeed } from "./sse-feed.js";
import { SseHub } from "./sse-hub.js";
import { accessLog } from "./access-log.js";
import { observeAnswers } from "./answered-requests.js";
import { bytesFieldInBody, takeBytes } from "./bytes-field.js";
import { answerClientErrors } from "./client-errors.js";
import { serveCrossOrigin, type RouteAlias } from "./cross-origin.js";
import { defaultResponseHeaders } from "./response-headers.js";
import { LargeBodySlots, base64BodyBytes, bodyLimitOf, type SettingLimits } from "./body-limits.js";
import { readJsonBody } from "./json-body.js";
import { plainQuery } from "./query-string.js";
import { ReusedBuffers } from "./reused-buffers.js";
import { settingLimits } from "./setting-limits.js";
import { buildParams, pickHeaders } from "./request-params.js";
import { upstreamAnswer, upstreamRequest } from "./upstream-compat.js";
import { jsonBody } from "../../shared/encoded-json.js";
import { isIdempotent, toAliasPath, type RouteSpec } from "./route-spec.js";
import { ROUTE_TABLE } from "./route-table.js";
import { METHOD_NOT_ALLOWED, NOT_FOUND, SHUTTING_DOWN, mapError, type MappedError } from "./status.js";

/** Levels at which the access log (info) is written. */
const ACCESS_LOG_LEVELS = new Set(["info", "debug", "trace"]);

/** Bytes a live stream may have waiting for its client before it is closed (some 200 events; 160 MiB for 10,000 streams at worst). */
const SSE_MAX_BUFFERED_BYTES = 16 * 1024;

/** Client-supplied request ids are kept only when they are short and plain. */
const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

type GatewayRequest = IncomingMessage & {
	$ctx: Context<unknown, RequestMeta>;
	$params: Record<string, unknown>;
	$alias?: { spec?: RouteSpec };
	$route?: GatewayRoute;
	/** The registry endpoint moleculer-web resolved for the alias. */
	$endpoint: { action: { name: string }; isAvailable: boolean; local: boolean };
	/** Request bytes taken out of the body (RouteSpec.bytesField). */
	$bytes?: Buffer;
	body?: unknown;
	query?: Record<string, unknown>;
	parsedUrl?: string;
};

type Alias = RouteAlias & { match(url: string): unknown };

/** The parts of a moleculer-web route and of a resolved alias that routeHandler reads. */
interface GatewayRoute {
	middlewares: unknown[];
	cors?: unknown;
	opts: { mergeParams?: boolean };
}
interface FoundAlias {
	alias: { action?: string; spec?: RouteSpec };
	params: Record<string, unknown>;
}
type RouteHandler = (this: unknown, ctx: Context, route: GatewayRoute, req: GatewayRequest, res: ServerResponse, found?: FoundAlias) => Promise<unknown>;
type ParseQueryString = (this: unknown, req: IncomingMessage) => { query: Record<string, unknown>; url: string };
const libraryMethods = (ApiGateway as unknown as { methods: { routeHandler: RouteHandler; parseQueryString: ParseQueryString } }).methods;
const libraryRouteHandler = libraryMethods.routeHandler;
const libraryParseQueryString = libraryMethods.parseQueryString;

interface GatewaySettings extends ServiceSettingSchema {
	port: number;
	ip: string;
	[key: string]: unknown;
}

interface GatewayMethods extends InstanceSettingsMethods {
	authenticate(ctx: Context<unknown, RequestMeta>, route: unknown, req: GatewayRequest, res: ServerResponse): Promise<Caller | null>;
	refuseCaller(ctx: Context<unknown, RequestMeta>, spec: RouteSpec, err: unknown): never;
	authorize(ctx: Context<unknown, RequestMeta>, route: unknown, req: GatewayRequest, res: ServerResponse): Promise<void>;
	parseQueryString(req: IncomingMessage): { query: Record<string, unknown>; url: string };
	routeHandler(ctx: Context, route: GatewayRoute, req: GatewayRequest, res: ServerResponse, found?: FoundAlias): Promise<unknown>;
	callAction(route: unknown, actionName: string, req: GatewayRequest, res: ServerResponse, params: Record<string, unknown>): Promise<true>;
	sendStatus(req: IncomingMessage, res: ServerResponse, mapped: MappedError): void;
	logFailure(req: IncomingMessage, err: unknown, mapped: MappedError): void;
	errorHandler(req: IncomingMessage, res: ServerResponse, err: unknown): void;
}

/** What moleculer-web adds to the service that this schema uses, and the gateway's own state. */
interface GatewayVars {
	largeBodies: LargeBodySlots;
	decodedBuffers: ReusedBuffers;
	bodyBuffers: ReusedBuffers;
	settingLimits: SettingLimits;
	/** API_COMPAT (contract 18). */
	apiCompat: ApiCompat;
	aliases: Alias[];
	/** The live streams of `GET /api/v1/sse` (contract 17) and the changes fed to them. */
	sse: SseHub;
	sseFeed: SseFeed;
	callers: VouchedCallers;
	/** Epoch ms; tests move it with the auth service's (token expiry). */
	clock: () => number;
	aliasHandler(req: GatewayRequest, res: ServerResponse, alias: FoundAlias["alias"]): Promise<unknown>;
	sendResponse(req: IncomingMessage, res: ServerResponse, data: unknown, action: unknown): void;
	sendError(req: IncomingMessage, res: ServerResponse, err: unknown): void;
	server: Server;
}

type GatewayThis = Service<GatewaySettings> & GatewayMethods & GatewayVars;

/** An event-stream route's alias (RouteSpec.eventStream), once authenticated and authorized: the caller's live stream. */
function eventStreamAlias(this: GatewayThis, req: GatewayRequest, res: ServerResponse, next: (err?: unknown) => void): void {
	try {
		const caller = signedIn(req.$ctx);
		// Without a session, a personal access token vouched: its deletion ends the stream.
		const token = caller.sessionId === undefined ? bearerToken(req.headers.authorization) : undefined;
		this.sse.open(res, caller, token === undefined ? undefined : hashPat(token));
	} catch (err) {
		next(err);
	}
}

function aliasesOf(table: readonly RouteSpec[]): Record<string, unknown> {
	const aliases: Record<string, unknown> = {};
	for (const spec of table) {
		const path = `${spec.method} ${toAliasPath(spec.path.replace(/^\/api\/v1/, ""))}`;
		aliases[path] = spec.eventStream === true ? { handler: eventStreamAlias, spec } : { action: spec.action.name, spec };
	}
	return aliases;
}

function sendJson(res: ServerResponse, status: number, body: unknown, head: boolean, headers: Record<string, string | number> = {}): void {
	const text = JSON.stringify(body);
	res.writeHead(status, { ...headers, "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(text) });
	res.end(head ? undefined : text);
}

/** While the process drains, only the probes still reach moleculer-web; every other request is refused. */
const PROBES = new Set(["/healthz", "/readyz"]);

const GatewayService: ServiceSchema<GatewaySettings, GatewayMethods, GatewayVars> = {
	name: "gateway",
	mixins: [ApiGateway, InstanceSettingViewsMixin as Partial<ServiceSchema>],
	settings: {
		port: 5230,
		ip: "0.0.0.0",
		log4XXResponses: false,
		// One line per alias would fill a screen at every start.
		logRouteRegistration: "debug",
		// moleculer-web's own lines per request are off: access-log.ts writes one line instead.
		logRequest: null,
		logResponse: null,
		logRequestParams: null,
		logResponseData: null,
		optimizeOrder: false,
		rootCallOptions(this: GatewayThis, options: { requestID?: string; parentSpan?: ParentSpan }, req: IncomingMessage) {
			const given = req.headers["x-request-id"];
			// Without a usable one, the root context's own id (a random UUID-shaped token Moleculer
			// makes for every context) is the request id: no second random id per request.
			options.requestID = typeof given === "string" && REQUEST_ID_RE.test(given) ? given : undefined;
			// A caller's W3C trace context continues here; its trace id becomes the request id.
			const parentSpan = parseTraceparent(req.headers.traceparent);
			if (parentSpan !== undefined) options.parentSpan = parentSpan;
		},
		routes: [
			{
				name: "api",
				path: "/api/v1",
				mappingPolicy: "restrict",
				autoAliases: false,
				aliases: aliasesOf(ROUTE_TABLE),
				mergeParams: false,
				// Bodies are read after routing, and only for operations that take one.
				bodyParsers: false,
				authentication: true,
				authorization: true,
			},
			{
				name: "ops",
				path: "/",
				mappingPolicy: "restrict",
				autoAliases: false,
				bodyParsers: false,
				aliases: {
					"GET /healthz"(this: GatewayThis, req: IncomingMessage, res: ServerResponse) {
						const { status, body } = liveness();
						sendJson(res, status, body, req.method === "HEAD");
					},
					async "GET /readyz"(this: GatewayThis, req: IncomingMessage, res: ServerResponse) {
						const { status, body } = await readiness(readinessChecks(this.broker), resourcesOf(this.broker).shutdown?.stopping ?? false);
						sendJson(res, status, body, req.method === "HEAD");
					},
					"GET /health/cluster": clusterViewAlias,
					"GET /openapi.json": openApiAlias,
					"GET /api-docs": apiDocsPageAlias,
					"GET /api-docs/:file": apiDocsAssetAlias,
					"GET /file/attachments/:attachment{/:filename}": fileRouteAlias,
					"HEAD /file/attachments/:attachment{/:filename}": fileRouteAlias,
					"GET /file/users/:username/avatar": avatarRouteAlias,
					"HEAD /file/users/:username/avatar": avatarRouteAlias
				}
			}
		],
		onError(this: GatewayThis, req: GatewayRequest, res: ServerResponse, err: unknown) {
			let mapped = mapError(err);
			// A routing miss on a path that exists under another method (contract 1.1).
			if ((err as { name?: unknown }).name === "NotFoundError") {
				const url = req.parsedUrl ?? (req.url ?? "/").split("?")[0];
				try {
					if (this.aliases.some(alias => alias.match(url as string))) mapped = METHOD_NOT_ALLOWED;
				} catch (matchErr) {
					// The path exists under another method, with a parameter that does not decode.
					mapped = mapError(matchErr);
				}
			}
			this.logFailure(req, err, mapped);
			this.sendStatus(req, res, mapped);
		}
	},

	actions: {
		// moleculer-web's root action, which every request runs through: it is never retried (no
		// call of it asks for retries), and being private it is called on this node's endpoint
		// without a balancer, so its circuit breaker could only count failures (the called
		// actions' breakers count theirs) and trip without steering any request. The two
		// wrappers cost each request two promises for nothing.
		rest: { retryPolicy: { enabled: false }, circuitBreaker: { enabled: false } }
	},

	events: {
		...onEvent<MemoChangeEvent, GatewayThis>(memoEvents.changed, function (ctx) {
			this.sseFeed.push({ event: String(ctx.eventName), change: ctx.params });
		}),
		// Streams outlive the check of their token: a revoked session or a changed user ends them, and they sign in again.
		...onEvent<{ familyIds: string[] }, GatewayThis>(authEvents.sessionsRevoked, function (ctx) {
			this.callers.forget();
			const revoked = new Set(ctx.params.familyIds);
			this.sse.end(stream => stream.sessionId !== undefined && revoked.has(stream.sessionId));
		}),
		...onEvent<{ tokenHash: string }, GatewayThis>(authEvents.patDeleted, function (ctx) {
			this.sse.end(stream => stream.patHash === ctx.params.tokenHash);
		}),
		...onEvent<{ id: string }, GatewayThis>(authEvents.userChanged, function (ctx) {
			this.callers.forget();
			this.sse.end(stream => stream.userId === ctx.params.id);
		})
	},

	methods: {
		/** The caller of an `Authorization: Bearer` token, verified by the auth service (contract 2.1). */
		async authenticate(ctx: Context<unknown, RequestMeta>, _route: unknown, req: GatewayRequest, res: ServerResponse): Promise<Caller | null> {
			const spec = req.$alias?.spec as RouteSpec;
			for (const [name, value] of Object.entries(spec.responseHeaders ?? {})) res.setHeader(name, value);
			refuseUnknownCustomMethod((req.$params as { params?: Record<string, unknown> }).params);
			if (spec.refreshCookie === true) {
				const meta = ctx.meta as CookieMeta;
				meta.refreshCookie = readRefreshCookie(req.headers.cookie);
				meta.secureTransport = isSecureRequest(req.headers);
			}
			if (spec.clientAddress === true) ctx.meta.clientAddress = clientAddressOf(req, resourcesOf(this.broker).config.trustedProxies);
			const header = req.headers.authorization;
			if (spec.ignoresAccessToken === true || header === undefined) return null;
			try {
				return await this.callers.callerOf(ctx, header);
			} catch (err) {
				return this.refuseCaller(ctx, spec, err);
			}
		},

		/** Authentication failed: some operations clear the refresh cookie too (GetCurrentUser, contract 2.3). */
		refuseCaller(ctx: Context<unknown, RequestMeta>, spec: RouteSpec, err: unknown): never {
			if (spec.authFailureClearsRefreshCookie === true && err instanceof ServiceError && err.type === "UNAUTHENTICATED") {
				const meta = ctx.meta as CookieMeta;
				meta.$responseHeaders = { "Set-Cookie": clearRefreshCookie(meta.secureTransport === true) };
			}
			throw err;
		},

		/** Runs after authentication: access first (contract 2.2), then the body is read and the params built. */
		async authorize(ctx: Context<unknown, RequestMeta>, _route: unknown, req: GatewayRequest, res: ServerResponse): Promise<void> {
			const spec = req.$alias?.spec as RouteSpec;
			// Before anything else: an anonymous caller on a private instance learns nothing (contract 2.2).
			const shutOut = spec.access === "anyone" ? false : spec.access === "public-instance" ? await anonymousOnPrivateInstance(ctx) : !ctx.meta.user;
			if (shutOut) this.refuseCaller(ctx, spec, unauthenticated());
			const { query, params } = req.$params as { query?: Record<string, unknown>; params?: Record<string, unknown> };
			let body: unknown;
			if (spec.body !== undefined) {
				const limit = await bodyLimitOf(spec.bodyLimit, this.settingLimits);
				this.largeBodies.take(limit, req, res);
				const path = bytesFieldInBody(spec);
				body = await readJsonBody(req, limit, path && { path, allocate: length => this.decodedBuffers.take(length) }, this.bodyBuffers);
			}
			const parts = this.apiCompat === "upstream" ? upstreamRequest(spec, { query: query ?? {}, body }) : { query: query ?? {}, body };
			req.$params = buildParams(spec, parts.query, parts.body, params ?? {});
			if (spec.bytesField !== undefined) req.$bytes = takeBytes(req.$params, spec.bytesField);
			// Once, here, for every operation: no text that cannot be encoded reaches a service (contract 19).
			refuseLoneSurrogates(req.$params, "the request");
			if (spec.requestHeaders !== undefined) req.$params[REQUEST_HEADERS_PARAM] = pickHeaders(req.headers, spec.requestHeaders);
			ctx.meta.requestTime = Date.now();
		},

		/** moleculer-web's split of the URL and its query, a plain query read without qs (query-string.ts). */
		parseQueryString(req: IncomingMessage): { query: Record<string, unknown>; url: string } {
			const url = req.url as string;
			const question = url.indexOf("?", 1);
			const query = question === -1 || this.settings.qsOptions !== undefined ? undefined : plainQuery(url.substring(question + 1));
			return query === undefined ? libraryParseQueryString.call(this, req) : { query, url: url.substring(0, question) };
		},

		/**
		 * moleculer-web's route handler, narrowed to an operation's alias on a route without
		 * middlewares or CORS of moleculer-web's (the API route): what is left of it for such a
		 * request is the params and pointers below and the alias handler, settled early when the
		 * response closes or fails first, as moleculer-web's is. Its general form costs each
		 * request a middleware chain run through two promises, three `once` listeners (`finish`
		 * is always followed by `close`), a regular-expression replace of the path and the text
		 * of its debug line naming the alias (the access log names the route), built even when
		 * debug is off. Every other request (custom handlers, the ops route) goes through it.
		 */
		routeHandler(ctx: Context, route: GatewayRoute, req: GatewayRequest, res: ServerResponse, found?: FoundAlias): Promise<unknown> {
			if (found === undefined || found.alias.action === undefined || route.middlewares.length > 0 || route.cors || route.opts.mergeParams !== false) {
				return libraryRouteHandler.call(this, ctx, route, req, res, found);
			}
			req.$route = route;
			(res as ServerResponse & { $route?: GatewayRoute }).$route = route;
			req.$params = { body: req.body, query: req.query, params: found.params };
			req.$alias = found.alias;
			return new Promise((resolve, reject) => {
				res.on("close", () => resolve(true));
				res.on("error", reject);
				this.aliasHandler(req, res, found.alias).then(resolve, reject);
			});
		},

		/**
		 * Replaces moleculer-web's call so that request bytes travel as the call's stream: decoded
		 * base64 (see bytes-field.ts), or the request itself for raw bodies (RouteSpec.streamBody);
		 * the rest is what moleculer-web does for our routes.
		 */
		async callAction(_route: unknown, _actionName: string, req: GatewayRequest, res: ServerResponse, params: Record<string, unknown>): Promise<true> {
			const spec = req.$alias?.spec as RouteSpec;
			const bytes = req.$bytes && Readable.from([req.$bytes], { objectMode: false });
			const options = {
				retries: isIdempotent(spec) ? IDEMPOTENT_RETRIES : 0,
				...(bytes ? { stream: bytes } : {}),
				...(spec.streamBody === undefined ? {} : { stream: req })
			};
			// Calling the resolved endpoint (as moleculer-web does) keeps its node choice, unless its
			// node left since; ctx.call accepts an endpoint although its typing only names action names.
			const target = req.$endpoint.isAvailable ? (req.$endpoint as unknown as string) : req.$endpoint.action.name;
			const data = await req.$ctx.call(target, params, options);
			// Read to its end by an action that succeeded: a local one has stored the bytes; those sent
			// to another node were all given to the transporter, which holds none once it has nothing
			// queued (else they may still wait in the NATS client's buffer or the socket's after the
			// answer: an action that did not read them, a slow connection). Nothing refers to them any
			// more then. After a failure a write may still be reading them: those, and bytes still
			// queued, are left to the garbage collector.
			const released = req.$endpoint.local || nothingQueuedToSend(this.broker);
			if (bytes?.readableEnded && req.$endpoint.isAvailable && released) this.decodedBuffers.give(req.$bytes as Buffer);
			this.sendResponse(req, res, this.apiCompat === "upstream" ? upstreamAnswer(spec, data) : data, req.$endpoint.action);
			return true;
		},

		/** moleculer-web's encoding of an action's answer, reusing the encoding of a kept response (shared/encoded-json.ts). */
		encodeResponse(_req: IncomingMessage, _res: ServerResponse, data: unknown): string | Buffer {
			return jsonBody(data);
		},

		sendStatus(req: IncomingMessage, res: ServerResponse, mapped: MappedError): void {
			if (res.headersSent) {
				res.destroy();
				return;
			}
			// Headers an action set before failing (a cleared refresh cookie) go out with the error,
			// as moleculer-web's own error handler sends them.
			const headers = (req as Partial<GatewayRequest>).$ctx?.meta as CookieMeta | undefined;
			for (const [name, value] of Object.entries(headers?.$responseHeaders ?? {})) res.setHeader(name, value);
			// A layer that knows better (the large-body slots) may have set its own Retry-After already.
			const retryAfter: Record<string, number> = mapped.retryAfter === undefined || res.hasHeader("Retry-After") ? {} : { "Retry-After": mapped.retryAfter };
			sendJson(res, mapped.http, mapped.body, req.method === "HEAD", retryAfter);
		},

		/** moleculer-web's own handler also logs 5xx failures, as a line without the error; onError logs each once, with it. */
		errorHandler(req: IncomingMessage, res: ServerResponse, err: unknown): void {
			this.sendError(req, res, err);
		},

		/**
		 * Every failure with its error (name, message, stack, cause) and the request id: ours at
		 * error level, the cluster's (node lost, time-out, queue full) at warn, the client's at debug.
		 */
		logFailure(req: IncomingMessage, err: unknown, mapped: MappedError): void {
			const fields = errorLog(err, (req as Partial<GatewayRequest>).$ctx?.requestID ?? undefined);
			if (mapped.unexpected) this.logger.error(fields, "request failed");
			else if (mapped.http >= 500) this.logger.warn(fields, "request failed: service unavailable");
			else this.logger.debug(fields, "request refused");
		}
	},

	created() {
		const { config, shutdown } = resourcesOf(this.broker);
		this.clock = () => Date.now();
		this.callers = new VouchedCallers(() => this.clock());
		this.settings.port = config.port;
		this.settings.ip = config.host;
		this.apiCompat = config.apiCompat;
		serveCrossOrigin(this.server, config.corsOrigins, () => this.aliases, res => sendJson(res, NOT_FOUND.http, NOT_FOUND.body, false));
		// Before the metrics listener, so that refused requests are counted too.
		if (shutdown) {
			drainOnShutdown(this.server, shutdown, (req, res) => {
				if ((req.method === "GET" || req.method === "HEAD") && PROBES.has((req.url ?? "/").split("?")[0] as string)) return false;
				this.sendStatus(req, res, SHUTTING_DOWN);
				return true;
			});
		}
		// Prepended after the drain's takeover, so that every answer carries them, refusals included.
		defaultResponseHeaders(this.server);
		this.largeBodies = new LargeBodySlots(config.maxLargeBodies, largeBodiesGauge(this.broker));
		// As many as large bodies are read at once, of a chunk's size and of its body: larger contents come one request each.
		this.decodedBuffers = new ReusedBuffers(MAX_CHUNK_BYTES, config.maxLargeBodies);
		this.bodyBuffers = new ReusedBuffers(base64BodyBytes(MAX_CHUNK_BYTES), config.maxLargeBodies);
		const streamMetrics = sseMetrics(this.broker);
		this.sse = new SseHub({
			maxStreams: config.sseMaxStreams,
			heartbeatMs: config.sseHeartbeatMs,
			maxBufferedBytes: SSE_MAX_BUFFERED_BYTES,
			onCount: streamMetrics.open,
			onSlowClient: () => streamMetrics.slowClosed()
		});
		this.sseFeed = new SseFeed(
			this.sse,
			// A read: another memos node may answer when the first fails mid-call.
			(changes, userIds) => call(this.broker, memosActions.changeReaders, { changes, userIds }, { retries: IDEMPOTENT_RETRIES }),
			err => this.logger.error(errorLog(err), "live streams ended: changes could not be checked against their readers")
		);
		// Streams never end by themselves: shutdown ends them, or the drain would wait for them until its deadline.
		shutdown?.register(
			async () => this.sse.close(),
			() => this.sse.close()
		);
		this.settingLimits = settingLimits(this.broker, key => this.instanceSetting(key), this.logger);
		const metrics = httpMetrics(this.broker);
		observeAnswers(this.server, [
			...(metrics ? [metrics] : []),
			...(ACCESS_LOG_LEVELS.has(config.logLevel) ? [accessLog(this.logger)] : [])
		]);
		answerClientErrors(this.server);
	},

	stopped() {
		this.sse.close();
	}
};

export default GatewayService;
