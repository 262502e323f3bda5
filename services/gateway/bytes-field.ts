import { STREAM_LENGTH_PARAM } from "../../shared/contract.js";
import { invalidArgument } from "../../shared/errors.js";
import { parseBytes } from "../../shared/proto-json.js";
import type { RouteSpec } from "./route-spec.js";

/**
 * Where a route's bytes field lies in its JSON body (the body goes under `spec.body` in the
 * params, or is merged into them for `*`); undefined when the body does not hold it.
 */
export function bytesFieldInBody(spec: RouteSpec): string[] | undefined {
	if (spec.bytesField === undefined || spec.body === undefined) return undefined;
	const keys = spec.bytesField.split(".");
	if (spec.body === "*") return keys;
	return keys[0] === spec.body && keys.length > 1 ? keys.slice(1) : undefined;
}

/**
 * Takes a base64 `bytes` field (a dotted path such as `audio.content`) out of the params and
 * decodes it once, unless the body reader decoded it from the request's bytes already (a
 * Buffer, json-body.ts). The bytes then travel to the action as the call's stream, which the
 * transporter sends in chunks, instead of inside the params (NATS refuses large messages and
 * base64 would be copied at every hop). The params keep `$streamLength`.
 */
export function takeBytes(params: Record<string, unknown>, path: string): Buffer | undefined {
	const keys = path.split(".");
	const last = keys.pop() as string;
	let holder: unknown = params;
	for (const key of keys) {
		holder = (holder as Record<string, unknown>)[key];
		if (typeof holder !== "object" || holder === null || Array.isArray(holder)) return undefined;
	}
	const container = holder as Record<string, unknown>;
	const value = container[last];
	if (value === undefined || value === null) return undefined;
	if (!Buffer.isBuffer(value) && typeof value !== "string") throw invalidArgument(`${path} must be base64 text`);
	const bytes = Buffer.isBuffer(value) ? value : parseBytes(value, path);
	delete container[last];
	params[STREAM_LENGTH_PARAM] = bytes.length;
	return bytes;
}
