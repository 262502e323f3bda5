/**
 * How documents are written as JSON text and read back. JSON lacks dates, so a Date is the
 * object `{"$$date": <epoch ms>}` (the encoding of NeDB's files, which the import reads as
 * they are); field names may neither start with `$` nor contain `.`, as in NeDB, so that no
 * stored object is mistaken for an encoded value or a dotted path.
 */

export const DATE_KEY = "$$date";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof RegExp) && !(value instanceof Date);
}

/** The JSON form of a value; `undefined` fields are left out, as JSON.stringify leaves them. */
export function toJson(value: unknown): Json {
	if (value === null || typeof value === "string" || typeof value === "boolean") return value;
	if (typeof value === "number") return Number.isFinite(value) ? value : null;
	if (value instanceof Date) {
		const ms = value.getTime();
		if (Number.isNaN(ms)) throw new TypeError("an invalid Date cannot be stored");
		return { [DATE_KEY]: ms };
	}
	if (Array.isArray(value)) return value.map(element => (element === undefined ? null : toJson(element)));
	if (isPlainObject(value)) {
		const out: Record<string, Json> = {};
		for (const [key, field] of Object.entries(value)) {
			if (field === undefined) continue;
			checkFieldName(key);
			out[key] = toJson(field);
		}
		return out;
	}
	throw new TypeError(`a ${value instanceof RegExp ? "RegExp" : typeof value} cannot be stored in a document`);
}

function checkFieldName(key: string): void {
	if (key.startsWith("$")) throw new TypeError(`field names cannot begin with "$": ${JSON.stringify(key)}`);
	if (key.includes(".")) throw new TypeError(`field names cannot contain ".": ${JSON.stringify(key)}`);
}

export function encodeJson(value: unknown): string {
	return JSON.stringify(toJson(value));
}

function revive(_key: string, value: unknown): unknown {
	if (isPlainObject(value) && typeof value[DATE_KEY] === "number" && Object.keys(value).length === 1) return new Date(value[DATE_KEY]);
	return value;
}

/**
 * Parses stored JSON text, turning encoded dates back into Dates (the reviver only runs where one
 * can be). The search is for the key without its quotes: a search starting with `"`, which JSON
 * text is full of, took ten times as long, and where the bare name occurs otherwise the reviver
 * changes nothing.
 */
export function decodeJson(text: string): unknown {
	return text.includes(DATE_KEY) ? JSON.parse(text, revive) : JSON.parse(text);
}

/**
 * The dotted paths under which `value` holds an array, array levels left out of the path
 * (`{ items: [{ tags: [] }] }` gives `items` and `items.tags`): the query translation needs
 * array semantics only there.
 */
export function arrayPaths(value: unknown, prefix = "", into = new Set<string>()): Set<string> {
	if (Array.isArray(value)) {
		into.add(prefix);
		for (const element of value) arrayPaths(element, prefix, into);
	} else if (isPlainObject(value)) {
		for (const [key, field] of Object.entries(value)) arrayPaths(field, prefix === "" ? key : `${prefix}.${key}`, into);
	}
	return into;
}
