import mime from "mime-types";
import { invalidArgument } from "../../shared/errors.js";
import { checkUrlLength, hasLoneSurrogate, parseHttpUrl } from "../../shared/free-form.js";
import { parseName } from "../../shared/names.js";
import { stringOf } from "../../shared/request-message.js";

/** Field rules of contract 4.6 and 8.2, shared by CreateAttachment, UpdateAttachment and the upload spec. */

export const FILENAME_MAX_BYTES = 255;
export const TYPE_MAX_LENGTH = 255;
export const DEFAULT_TYPE = "application/octet-stream";

// RFC 6838 restricted names, lower-cased.
const NAME = "[a-z0-9][a-z0-9!#$&^_.+-]*";
const MEDIA_TYPE = new RegExp(`^${NAME}/${NAME}$`);

/** Required; at most 255 bytes; no `/`, `\` or NUL; not starting or ending with a space or `.`. */
export function parseFilename(value: unknown, field: string): string {
	const raw = stringOf(value, field);
	if (raw === "") throw invalidArgument(`${field} is required`);
	if (Buffer.byteLength(raw, "utf8") > FILENAME_MAX_BYTES) throw invalidArgument(`${field} is longer than ${FILENAME_MAX_BYTES} bytes`);
	if (hasLoneSurrogate(raw)) throw invalidArgument(`${field} is not valid UTF-8 (lone surrogate)`);
	if (/[/\\\0]/.test(raw)) throw invalidArgument(`${field} must not contain "/", "\\" or NUL`);
	if (/^[ .]|[ .]$/.test(raw)) throw invalidArgument(`${field} must not start or end with a space or "."`);
	return raw;
}

/**
 * A client's MIME type with its parameters dropped and lower-cased; "" when none was given.
 * Anything that is not `type/subtype` is INVALID_ARGUMENT.
 */
export function parseType(value: unknown, field: string): string {
	const raw = stringOf(value, field);
	if (raw === "") return "";
	if (raw.length > TYPE_MAX_LENGTH) throw invalidArgument(`${field} is longer than ${TYPE_MAX_LENGTH} characters`);
	const bare = (raw.split(";")[0] ?? "").trim().toLowerCase();
	if (!MEDIA_TYPE.test(bare)) throw invalidArgument(`${field} must be a media type such as "image/png"`);
	return bare;
}

/** The type a filename's extension stands for, or "". */
export function typeFromFilename(filename: string): string {
	const found = mime.lookup(filename);
	return found === false ? "" : found.toLowerCase();
}

/** An `http(s)` URL of at most 2048 bytes; "" when none was given. */
export function parseExternalLink(raw: unknown, field: string): string {
	const invalid = () => invalidArgument(`${field} must be an http or https URL`);
	if (raw === undefined || raw === "") return "";
	if (typeof raw !== "string") throw invalid();
	checkUrlLength(raw, field);
	if (parseHttpUrl(raw) === null) throw invalid();
	return raw;
}

/** The memo an attachment is linked to, `memos/{memo}`, as its id; unset or "" means none. */
export function parseMemoRef(value: unknown, field: string): string | null {
	const name = stringOf(value, field);
	return name === "" ? null : parseName("memo", name, field);
}

/** STORAGE `uploadSizeLimitMb` in bytes; 0 (or nothing usable) means the default 30 MiB (contract 4.12). */
export function uploadLimitBytes(storage: Record<string, unknown>): number {
	const raw = Number(storage.uploadSizeLimitMb);
	const mb = Number.isFinite(raw) && raw > 0 ? raw : 30;
	return mb * 1024 * 1024;
}
