import { invalidArgument } from "../../shared/errors.js";
import { hasLoneSurrogate } from "../../shared/free-form.js";
import { parseName } from "../../shared/names.js";
import { parseTimestamp } from "../../shared/proto-json.js";
import { enumOf, fieldOf, optionalMessageOf, stringOf } from "../../shared/request-message.js";
import type { MemoLocation, MemoState, Visibility } from "./memo-doc.js";

/** Readers for the Memo fields a client may send (contract 4.1), shared by create and update. */

/** Enum values in number order, so that numbers are accepted as proto3 JSON allows (1.2). */
export const VISIBILITY_VALUES = ["VISIBILITY_UNSPECIFIED", "PRIVATE", "PROTECTED", "PUBLIC", "SPACE"] as const;
export const STATE_VALUES = ["STATE_UNSPECIFIED", "NORMAL", "ARCHIVED"] as const;

/** The contract's floor for MEMO_RELATED `contentLengthLimit` (4.12). */
export const MIN_CONTENT_LENGTH_LIMIT = 8192;

/** The content limit in bytes a MEMO_RELATED setting gives: its `contentLengthLimit`, never below the floor. */
export function contentLimitOf(memoRelated: Record<string, unknown>): number {
	const limit = memoRelated.contentLengthLimit;
	return typeof limit === "number" ? Math.max(limit, MIN_CONTENT_LENGTH_LIMIT) : MIN_CONTENT_LENGTH_LIMIT;
}


/**
 * Markdown content: a string of at most `limit` UTF-8 bytes. A lone surrogate cannot be
 * encoded in UTF-8 (it is what invalid UTF-8 becomes in a JSON string), and NUL has no
 * place in text: both are refused rather than stored.
 */
export function readContent(value: unknown, limit: number): string {
	const content = stringOf(value, "content");
	if (hasLoneSurrogate(content)) throw invalidArgument("content is not valid UTF-8 (lone surrogate)");
	if (content.includes("\u0000")) throw invalidArgument("content must not contain NUL characters");
	const effective = Math.max(limit, MIN_CONTENT_LENGTH_LIMIT);
	const bytes = Buffer.byteLength(content, "utf8");
	if (bytes > effective) throw invalidArgument(`content is ${bytes} bytes, longer than the limit of ${effective} bytes`);
	return content;
}

/** `VISIBILITY_UNSPECIFIED` and unset mean PRIVATE. */
export function readVisibility(value: unknown, unspecified: Visibility = "PRIVATE"): Visibility {
	const visibility = enumOf(value, VISIBILITY_VALUES, "visibility");
	return visibility === "VISIBILITY_UNSPECIFIED" ? unspecified : visibility;
}

/** Whether a memo message leaves its visibility to the default (unset or VISIBILITY_UNSPECIFIED). */
export function leavesVisibilityUnspecified(memo: unknown): boolean {
	const value = typeof memo === "object" && memo !== null ? fieldOf(memo as Record<string, unknown>, "visibility") : undefined;
	return value === undefined || value === 0 || value === "VISIBILITY_UNSPECIFIED";
}

/** A stored state: `STATE_UNSPECIFIED` or unset is INVALID_ARGUMENT (contract 7.5). */
export function readState(value: unknown): MemoState {
	const state = enumOf(value, STATE_VALUES, "state");
	if (state === "STATE_UNSPECIFIED") throw invalidArgument("state must be NORMAL or ARCHIVED");
	return state;
}

export function readPinned(value: unknown): boolean {
	if (value === undefined) return false;
	if (typeof value !== "boolean") throw invalidArgument("pinned must be true or false");
	return value;
}

/** A double as proto3 JSON gives it: a number or a numeric string. */
function readDouble(value: unknown, field: string): number {
	if (value === undefined) return 0;
	const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
	if (!Number.isFinite(n)) throw invalidArgument(`${field} must be a number`);
	return n;
}

/** A location's place name (contract 19). */
export const MAX_PLACEHOLDER_CHARS = 256;

/** Unset reads as no location; latitude and longitude outside their ranges (4.1), or a longer place name (19), are refused. */
export function readLocation(value: unknown): MemoLocation | null {
	const body = optionalMessageOf(value, "location");
	if (body === undefined) return null;
	const placeholder = stringOf(fieldOf(body, "placeholder"), "location.placeholder");
	if ([...placeholder].length > MAX_PLACEHOLDER_CHARS) throw invalidArgument(`location.placeholder must be at most ${MAX_PLACEHOLDER_CHARS} characters`);
	const latitude = readDouble(fieldOf(body, "latitude"), "location.latitude");
	const longitude = readDouble(fieldOf(body, "longitude"), "location.longitude");
	if (latitude < -90 || latitude > 90) throw invalidArgument("location.latitude must be between -90 and 90");
	if (longitude < -180 || longitude > 180) throw invalidArgument("location.longitude must be between -180 and 180");
	return { placeholder, latitude, longitude };
}

/** `spaces/{space}` as its id; `null`, `""` or unset mean no space. */
export function readSpace(value: unknown): string | null {
	if (value === undefined || value === "") return null;
	if (typeof value !== "string") throw invalidArgument("space must be a resource name of the form spaces/{space} or null");
	return parseName("space", value, "space");
}

/** A Timestamp field; unset gives undefined so callers can apply their default. */
export function readTime(value: unknown, field: string): number | undefined {
	return value === undefined ? undefined : parseTimestamp(value, field);
}
