import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "moleculer";
import type { RequestMeta } from "../../shared/caller.js";
import type { AnswerObserver } from "./answered-requests.js";
import { routeLabel } from "./http-metrics.js";
import type { RouteSpec } from "./route-spec.js";

type LoggedRequest = IncomingMessage & {
	$alias?: { fullPath?: string; spec?: RouteSpec };
	$ctx?: { requestID?: string | null; meta?: RequestMeta };
};

/**
 * The access log (issue 17): one info line per request the gateway's HTTP server answers or
 * loses, with the route template (never the concrete path, which may carry ids and share
 * tokens), status, duration, request id and the caller's user id. Query strings, headers and
 * bodies are never logged. It replaces moleculer-web's own request and response lines.
 */
export function accessLog(logger: Logger): AnswerObserver {
	return (req: LoggedRequest, res: ServerResponse, seconds: number) => {
		const route = routeLabel(req);
		const line: Record<string, unknown> = {
			method: req.method,
			route,
			status: res.statusCode,
			durationMs: Math.round(seconds * 1e6) / 1e3,
			requestId: req.$ctx?.requestID ?? undefined,
			userId: req.$ctx?.meta?.user?.id ?? null
		};
		if (!res.writableFinished) line.aborted = true;
		logger.info(line, `${req.method} ${route} ${res.statusCode}`);
	};
}
