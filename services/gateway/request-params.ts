import type { IncomingHttpHeaders } from "node:http";
import { invalidArgument } from "../../shared/errors.js";
import type { RouteSpec } from "./route-spec.js";

/**
 * Builds an action's params from an HTTP request the way gRPC transcoding does: query
 * parameters, then the body (merged or nested, as the route says), then path parameters,
 * which always win.
 */
export function buildParams(
	spec: RouteSpec,
	query: Record<string, unknown>,
	body: unknown,
	pathParams: Record<string, unknown>
): Record<string, unknown> {
	const params: Record<string, unknown> = { ...query };
	if (spec.body !== undefined) {
		const payload = body === undefined ? {} : body;
		if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
			throw invalidArgument("request body must be a JSON object");
		}
		if (spec.body === "*") Object.assign(params, payload);
		else params[spec.body] = payload;
	}
	return Object.assign(params, pathParams);
}

/** The named request headers (lower-case names) with their values; a repeated header's values joined by commas. */
export function pickHeaders(headers: IncomingHttpHeaders, names: readonly string[]): Record<string, string> {
	const picked: Record<string, string> = {};
	for (const name of names) {
		const value = headers[name];
		if (value !== undefined) picked[name] = Array.isArray(value) ? value.join(", ") : value;
	}
	return picked;
}
