import { createHash } from "node:crypto";
import { internal, invalidArgument } from "../errors.js";
import { parseInt32 } from "../proto-json.js";

/** Every paginated list shares these (contract 1.7, 14). */
export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 1000;

/** Absent, zero or negative → the default; above the maximum → the maximum. */
export function normalizePageSize(raw: number | undefined): number {
	if (raw === undefined || !(raw >= 1)) return PAGE_SIZE_DEFAULT;
	return Math.min(Math.floor(raw), PAGE_SIZE_MAX);
}

/** The `pageSize` request parameter: absent or empty → the default; not an int32 → INVALID_ARGUMENT. */
export function pageSizeParam(value: unknown): number {
	return normalizePageSize(value === undefined || value === "" ? undefined : parseInt32(value, "pageSize"));
}

/** The JSON inside a token: operation, query fingerprint, position. Short keys keep URLs short. */
interface TokenPayload {
	o: string;
	f: string;
	p: unknown;
}

const TOKEN_ALPHABET = /^[A-Za-z0-9_-]+$/;

/**
 * JSON with object keys sorted at every level, so that two queries with the same parameters
 * fingerprint alike whatever order their keys were built in. The JSON round trip first drops
 * undefined members and applies toJSON, as serialising the query would.
 */
function canonicalJson(value: Record<string, unknown>): string {
	const sortKeys = (node: unknown): unknown => {
		if (Array.isArray(node)) return node.map(sortKeys);
		if (node !== null && typeof node === "object") {
			const entries = Object.entries(node).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
			return Object.fromEntries(entries.map(([key, child]) => [key, sortKeys(child)]));
		}
		return node;
	};
	return JSON.stringify(sortKeys(JSON.parse(JSON.stringify(value))));
}

// 128 bits of SHA-256: collisions between honest queries are out of the question, and the
// fingerprint only has to catch mistakes, not resist forgery (the token carries no secret).
function fingerprint(query: Record<string, unknown>): string {
	return createHash("sha256").update(canonicalJson(query)).digest().subarray(0, 16).toString("base64url");
}

/**
 * An opaque token for the page after `position`, valid only for `operation` with the same
 * `query` (the list parameters other than pageSize and pageToken).
 */
export function encodePageToken(operation: string, query: Record<string, unknown>, position: unknown): string {
	// JSON would drop an undefined position, and null is how decodePageToken says "first page".
	if (position === undefined || position === null) throw internal("page token position is missing");
	const payload: TokenPayload = { o: operation, f: fingerprint(query), p: position };
	return Buffer.from(JSON.stringify(payload)).toString("base64url");
}

function isPayload(value: unknown): value is TokenPayload {
	return (
		value !== null &&
		typeof value === "object" &&
		!Array.isArray(value) &&
		typeof (value as Record<string, unknown>).o === "string" &&
		typeof (value as Record<string, unknown>).f === "string" &&
		Object.hasOwn(value, "p")
	);
}

/**
 * The position in a token issued by encodePageToken for the same operation and query; null for
 * an absent or empty token (the first page). Anything else is INVALID_ARGUMENT. Pass
 * `isPosition` to have the position's shape checked too, since a client can forge any JSON.
 */
export function decodePageToken<T = unknown>(
	token: string | undefined,
	operation: string,
	query: Record<string, unknown>,
	isPosition?: (position: unknown) => position is T
): T | null {
	if (token === undefined || token === "") return null;
	const invalid = () => invalidArgument("invalid page token");
	if (!TOKEN_ALPHABET.test(token)) throw invalid();
	const bytes = Buffer.from(token, "base64url");
	// Buffer decoding is lenient (stray trailing characters or bits); only our own encoding is accepted.
	if (bytes.toString("base64url") !== token) throw invalid();
	let payload: unknown;
	try {
		payload = JSON.parse(bytes.toString("utf8"));
	} catch {
		throw invalid();
	}
	if (!isPayload(payload) || payload.o !== operation || payload.f !== fingerprint(query)) throw invalid();
	if (isPosition !== undefined && !isPosition(payload.p)) throw invalid();
	return payload.p as T;
}
