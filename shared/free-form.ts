import { invalidArgument } from "./errors.js";

/**
 * Generic limits on free-form input (contract 19), the same in every service: text that can
 * be encoded, and JSON objects a document store accepts and a list of them can carry. The
 * limits of particular fields live with the service that owns them.
 */

/** A JSON object field (attachment media metadata, motion media) serialised. */
export const MAX_JSON_FIELD_BYTES = 16 * 1024;

/** Levels of a JSON object field, the field's own object being the first. */
export const MAX_JSON_FIELD_DEPTH = 8;

/** A URL stored as given (external link, avatar URL), in UTF-8 bytes. */
export const MAX_URL_BYTES = 2048;

// In a `u` regex a surrogate pair is one code point, so only unpaired halves match.
const LONE_SURROGATE = /\p{Cs}/u;

/** Whether the text holds a lone surrogate: it cannot be encoded in UTF-8 (it is what invalid UTF-8 becomes in a JSON string). */
export function hasLoneSurrogate(text: string): boolean {
	return LONE_SURROGATE.test(text);
}

/** The text with any lone surrogate replaced by U+FFFD, for output built from text stored before it was refused at input. */
export function wellFormed(text: string): string {
	return text.replace(/\p{Cs}/gu, "\uFFFD");
}

/**
 * INVALID_ARGUMENT when any string of a parsed JSON value (a key or a value, at any depth)
 * holds a lone surrogate, so that nothing stored can break a response later. Walked without
 * recursion.
 */
export function refuseLoneSurrogates(value: unknown, where: string): void {
	const pending: unknown[] = [value];
	while (pending.length > 0) {
		const item = pending.pop();
		if (typeof item === "string") {
			if (hasLoneSurrogate(item)) throw invalidArgument(`${where} holds text that is not valid UTF-8 (lone surrogate)`);
		} else if (Array.isArray(item)) {
			pending.push(...(item as unknown[]));
		} else if (typeof item === "object" && item !== null) {
			for (const [key, child] of Object.entries(item)) pending.push(key, child);
		}
	}
}

/**
 * A JSON object field stored and echoed as given (contract 19): at most 16 KiB serialised, 8
 * levels deep, and no key that a document store refuses (a leading `$`, or a `.`).
 */
export function checkJsonObjectField(value: Record<string, unknown>, field: string): Record<string, unknown> {
	const pending: [unknown, number][] = [[value, 1]];
	while (pending.length > 0) {
		const [item, depth] = pending.pop() as [unknown, number];
		if (typeof item !== "object" || item === null) continue;
		if (depth > MAX_JSON_FIELD_DEPTH) throw invalidArgument(`${field} is nested deeper than ${MAX_JSON_FIELD_DEPTH} levels`);
		const children = Array.isArray(item) ? (item as unknown[]) : Object.values(item);
		if (!Array.isArray(item)) {
			for (const key of Object.keys(item)) {
				if (key.startsWith("$") || key.includes(".")) throw invalidArgument(`${field} has the key ${JSON.stringify(key)}: keys may not start with "$" or contain "."`);
			}
		}
		for (const child of children) pending.push([child, depth + 1]);
	}
	const bytes = Buffer.byteLength(JSON.stringify(value), "utf8");
	if (bytes > MAX_JSON_FIELD_BYTES) throw invalidArgument(`${field} is ${bytes} bytes as JSON, more than ${MAX_JSON_FIELD_BYTES}`);
	return value;
}

/** A URL of at most 2048 UTF-8 bytes (contract 19); what makes it valid is the caller's rule. */
export function checkUrlLength(url: string, field: string): string {
	if (Buffer.byteLength(url, "utf8") > MAX_URL_BYTES) throw invalidArgument(`${field} must be at most ${MAX_URL_BYTES} bytes`);
	return url;
}

/**
 * `text` as an absolute http or https URL (resolved against `base` when given), or null when it
 * does not parse or names another scheme. A parsed http(s) URL always has a host, so callers
 * need not check for one. Each caller words its own refusal and applies its own limits.
 */
export function parseHttpUrl(text: string, base?: string): URL | null {
	const url = URL.parse(text, base);
	return url !== null && (url.protocol === "http:" || url.protocol === "https:") ? url : null;
}

/**
 * A required URL field (webhook `url`, link metadata `url`): a string, trimmed, not empty, at
 * most 2048 bytes, http or https. Returns the trimmed text and its parsed form.
 */
export function requiredHttpUrl(raw: unknown, field: string): { text: string; url: URL } {
	if (typeof raw !== "string") throw invalidArgument(`${field} must be a string`);
	const text = raw.trim();
	if (text === "") throw invalidArgument(`${field} is required`);
	checkUrlLength(text, field);
	const url = parseHttpUrl(text);
	if (url === null) throw invalidArgument(URL.canParse(text) ? `${field} must be an http or https URL` : `${field} is not a valid URL`);
	return { text, url };
}
