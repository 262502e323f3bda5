import { STREAM_LENGTH_PARAM } from "../../shared/contract.js";
import { invalidArgument } from "../../shared/errors.js";
import { parseBytes } from "../../shared/proto-json.js";

/**
 * Takes a base64 `bytes` field (a dotted path such as `audio.content`) out of the params and
 * decodes it once. The bytes then travel to the action as the call's stream, which the
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
	if (typeof value !== "string") throw invalidArgument(`${path} must be base64 text`);
	const bytes = parseBytes(value, path);
	delete container[last];
	params[STREAM_LENGTH_PARAM] = bytes.length;
	return bytes;
}
