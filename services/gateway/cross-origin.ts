import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import type { CorsOrigins } from "../../shared/runtime/config.js";
import type { RouteSpec } from "./route-spec.js";

/**
 * `OPTIONS` and CORS (contract 19). moleculer-web would route an `OPTIONS` request as the
 * method named in `Access-Control-Request-Method` and run that operation, so every `OPTIONS`
 * is answered here, before routing: a preflight by the CORS rules, any other with `Allow`.
 * Which methods and request headers a path takes comes from the gateway's aliases, that is
 * from the route table.
 */

/** One gateway alias: its method, its path pattern, and the route-table row behind it (API routes only). */
export interface RouteAlias {
	method: string;
	re: RegExp;
	spec?: RouteSpec;
}

/** The paths browsers on other origins may call. */
const CROSS_ORIGIN_PATHS = /^\/(api\/v1|file)\//;
const MAX_AGE_SECONDS = "600";
/** Every request may carry these; a body adds its type and encoding, a file read its range and validators. */
const COMMON_HEADERS = ["Authorization", "X-Request-Id", "traceparent"];
const BODY_HEADERS = ["Content-Type", "Content-Encoding"];
const FILE_HEADERS = ["Range", "If-Range", "If-None-Match"];
/** Response headers a page may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS = "Retry-After, X-Request-Id, Content-Disposition, Content-Range, Accept-Ranges, ETag";

function pathOf(req: IncomingMessage): string {
	return (req.url ?? "/").split("?")[0] as string;
}

/**
 * The CORS headers every response to `origin` carries: `*` (never with credentials), or the
 * origin itself with credentials when it is listed by name; none for an origin not allowed.
 */
export function originHeaders(origins: CorsOrigins, origin: string | undefined): Record<string, string> {
	const vary: Record<string, string> = origins.named.length > 0 ? { Vary: "Origin" } : {};
	if (origin === undefined) return vary;
	if (origins.named.includes(origin)) {
		return { ...vary, "Access-Control-Allow-Origin": origin, "Access-Control-Allow-Credentials": "true", "Access-Control-Expose-Headers": EXPOSED_HEADERS };
	}
	if (origins.any) return { ...vary, "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": EXPOSED_HEADERS };
	return vary;
}

/** The methods and request headers of a path, from the aliases that match it. */
export function pathMethods(aliases: readonly RouteAlias[], path: string): { methods: string[]; headers: string[] } {
	const matching = aliases.filter(alias => alias.method !== "*" && alias.re.test(path));
	const methods = [...new Set(matching.map(alias => alias.method))];
	const headers = [...COMMON_HEADERS];
	if (matching.some(alias => alias.spec?.body !== undefined)) headers.push(...BODY_HEADERS);
	if (path.startsWith("/file/")) headers.push(...FILE_HEADERS);
	return { methods, headers };
}

function answerOptions(req: IncomingMessage, res: ServerResponse, origins: CorsOrigins, aliases: readonly RouteAlias[], notFound: (res: ServerResponse) => void): void {
	const path = pathOf(req);
	const { methods, headers } = pathMethods(aliases, path);
	if (methods.length === 0) return notFound(res);
	const allow = [...methods, "OPTIONS"].join(", ");
	const answer: Record<string, string> = { Allow: allow, "Content-Length": "0" };
	const origin = req.headers.origin;
	const preflight = origin !== undefined && req.headers["access-control-request-method"] !== undefined;
	if (preflight && CROSS_ORIGIN_PATHS.test(path) && (origins.any || origins.named.includes(origin))) {
		answer["Access-Control-Allow-Methods"] = allow;
		answer["Access-Control-Allow-Headers"] = headers.join(", ");
		answer["Access-Control-Max-Age"] = MAX_AGE_SECONDS;
	}
	res.writeHead(204, answer);
	res.end();
}

/**
 * Takes over the server's request listeners: CORS headers on responses of the cross-origin
 * paths, and every `OPTIONS` answered without reaching an operation. `aliases` is read per
 * request (moleculer-web builds them after the server exists).
 */
export function serveCrossOrigin(server: Server, origins: CorsOrigins, aliases: () => readonly RouteAlias[], notFound: (res: ServerResponse) => void): void {
	const listeners = server.listeners("request") as RequestListener[];
	server.removeAllListeners("request");
	// Most requests carry no Origin (same-origin pages, other servers): their headers are made once.
	const withoutOrigin = Object.entries(originHeaders(origins, undefined));
	server.on("request", (req: IncomingMessage, res: ServerResponse) => {
		const origin = req.headers.origin;
		if ((origin !== undefined || withoutOrigin.length > 0) && CROSS_ORIGIN_PATHS.test(pathOf(req))) {
			const headers = origin === undefined ? withoutOrigin : Object.entries(originHeaders(origins, origin));
			for (const [name, value] of headers) res.setHeader(name, value);
		}
		if (req.method === "OPTIONS") return answerOptions(req, res, origins, aliases(), notFound);
		for (const listener of listeners) listener.call(server, req, res);
	});
}
