import { jsonName, snakeName } from "../../shared/request-message.js";
import { OPERATION_DOCS } from "./openapi-operations.js";
import { SCHEMAS, type Schema } from "./openapi-schemas.js";
import type { RouteSpec } from "./route-spec.js";

/**
 * `API_COMPAT=upstream` (contract 18): the four places where this service's strict contract
 * breaks clients written for upstream memos, answered as upstream's gateway does. Everything
 * else stays strict; in the default mode none of this runs.
 */

/** The request's query and JSON body before the action's params are built from them. */
export interface RequestParts {
	query: Record<string, unknown>;
	body: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Operations whose updateMask is required: those whose document says so (openapi-operations.ts). */
function requiresMask(spec: RouteSpec): boolean {
	return OPERATION_DOCS[spec.operation]?.query?.includes("updateMask") === true;
}

function maskGiven(query: Record<string, unknown>): boolean {
	const mask = query.updateMask ?? query.update_mask;
	return mask !== undefined && mask !== "";
}

/**
 * The mask upstream's gateway infers from a PATCH body: its top-level fields. The request
 * message's identifier (`name`), its output-only fields and fields it does not have name
 * nothing to update, as upstream's server ignores them.
 */
function inferredMask(spec: RouteSpec, body: Record<string, unknown>): string {
	const request = OPERATION_DOCS[spec.operation]?.request;
	const properties: Record<string, Schema> = (request === undefined ? undefined : (SCHEMAS[request] as Schema).properties) ?? {};
	const paths = Object.keys(body)
		.map(jsonName)
		.filter(field => field !== "name" && properties[field] !== undefined && properties[field].readOnly !== true);
	return [...new Set(paths.map(snakeName))].join(",");
}

/** UpdateMemo's `state` left unspecified (by name or number) means NORMAL upstream. */
function specifiedState(spec: RouteSpec, body: Record<string, unknown>): Record<string, unknown> {
	if (spec.operation !== "UpdateMemo" || (body.state !== "STATE_UNSPECIFIED" && body.state !== 0)) return body;
	return { ...body, state: "NORMAL" };
}

/** `display_time` in an orderBy is upstream's name of the creation time. */
function orderByCreateTime(query: Record<string, unknown>): Record<string, unknown> {
	const orderBy = query.orderBy ?? query.order_by;
	if (typeof orderBy !== "string" || !/\bdisplay_time\b/.test(orderBy)) return query;
	const key = query.orderBy === undefined ? "order_by" : "orderBy";
	return { ...query, [key]: orderBy.replace(/\bdisplay_time\b/g, "create_time") };
}

/** The request as this service's strict contract reads it. */
export function upstreamRequest(spec: RouteSpec, parts: RequestParts): RequestParts {
	let { query, body } = parts;
	query = orderByCreateTime(query);
	if (isObject(body)) {
		body = specifiedState(spec, body);
		if (spec.method === "PATCH" && requiresMask(spec) && !maskGiven(query)) {
			const mask = inferredMask(spec, body as Record<string, unknown>);
			if (mask !== "") query = { ...query, updateMask: mask };
		}
	}
	return { query, body };
}

/** An operation answering Empty answers `{}` upstream, where this contract sends a zero-length body. */
export function upstreamAnswer(spec: RouteSpec, data: unknown): unknown {
	return spec.empty === true ? {} : data;
}
