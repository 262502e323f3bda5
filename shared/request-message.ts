import { invalidArgument } from "./errors.js";
import { parseBool, parseEnum } from "./proto-json.js";

/**
 * The one reader of request messages (contract 1.2, 1.3). Its rules, the same for every field:
 * - a field is read by its lowerCamelCase JSON name or its original snake_case name; when a
 *   body carries both, the JSON name wins;
 * - `null` means unset;
 * - an unset field reads as its default: `""` for a string, the zero value (the first name) for
 *   an enum, an empty message for a request's
 *   top-level message, nothing (undefined) for a message-typed field; a string's default is
 *   `""`, so `""` and unset are the same value (a required string that is `""` is missing).
 * Query parameters are strings given at most once; an empty one reads as absent.
 */

/** A JSON object message of a request. */
export type JsonMessage = Record<string, unknown>;

export function isMessage(value: unknown): value is JsonMessage {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A request's message: unset reads as empty; anything but a JSON object is INVALID_ARGUMENT. */
export function messageOf(value: unknown, field: string): JsonMessage {
	return optionalMessageOf(value, field) ?? {};
}

/** A message-typed field: unset reads as undefined (such a field is omitted, 1.3); anything but a JSON object is INVALID_ARGUMENT. */
export function optionalMessageOf(value: unknown, field: string): JsonMessage | undefined {
	if (value === undefined || value === null) return undefined;
	if (!isMessage(value)) throw invalidArgument(`${field} must be a JSON object`);
	return value;
}

/** `display_name` → `displayName`; a lowerCamelCase name is returned as it is. */
export function jsonName(name: string): string {
	return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** `displayName` → `display_name`. */
export function snakeName(name: string): string {
	return name.replace(/[A-Z]/g, c => `_${c.toLowerCase()}`);
}

/** A field by its JSON name or its snake_case name (either may be given); null reads as unset. */
export function fieldOf(message: JsonMessage, name: string): unknown {
	const json = jsonName(name);
	const value = Object.hasOwn(message, json) ? message[json] : message[snakeName(json)];
	return value === null ? undefined : value;
}

/** A string field's value: unset reads as `""`; anything but a string is INVALID_ARGUMENT. */
export function stringOf(value: unknown, field: string): string {
	if (value === undefined || value === null) return "";
	if (typeof value !== "string") throw invalidArgument(`${field} must be a string`);
	return value;
}

/** An enum field's value by name or number (1.2): unset reads as the zero value, `names[0]`. */
export function enumOf<const T extends string>(value: unknown, names: readonly T[], field: string): T {
	return value === undefined || value === null ? names[0] : parseEnum(value, names, field);
}

/** A query parameter by its JSON name or its snake_case name; an empty value reads as absent. */
export function queryParamOf(params: JsonMessage, name: string): unknown {
	const value = fieldOf(params, name);
	return value === "" ? undefined : value;
}

/** A boolean query parameter by either name: absent or empty reads as false. */
export function queryBoolOf(params: JsonMessage, name: string): boolean {
	const value = queryParamOf(params, name);
	return value === undefined ? false : parseBool(value, jsonName(name));
}

/** A query parameter that is a single string when present (a repeated one arrives as an array). */
export function queryStringOf(value: unknown, field: string): string | undefined {
	if (value === undefined) return undefined;
	if (typeof value !== "string") throw invalidArgument(`${field} must be given once, as a string`);
	return value;
}
