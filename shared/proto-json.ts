import { invalidArgument } from "./errors.js";

/** proto3 JSON values (contract 1.2) as they come from bodies and query strings, and as we emit them. */

// The range of google.protobuf.Timestamp: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z at our precision.
const TIMESTAMP_MIN_MS = -62135596800000;
const TIMESTAMP_MAX_MS = 253402300799999;

// RFC 3339 date-time; "T" and "Z" may be lower case (RFC 3339 5.6). Fractions stop at
// nanoseconds, the precision of google.protobuf.Timestamp.
const RFC3339 =
	/^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const DAY_MS = 86_400_000;
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, "0"));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"));

/**
 * RFC 3339 in UTC with exactly three fractional digits and `Z`: what `toISOString` gives. Within
 * the Timestamp range it is computed here (a ListMemos page formats two per memo, and
 * `new Date(ms).toISOString()` cost about 0.5 µs each, three times this); the civil date is
 * Howard Hinnant's days-to-date algorithm, valid for any day count.
 */
export function toTimestamp(ms: number | Date): string {
	const time = Math.trunc(typeof ms === "number" ? ms : ms.getTime());
	if (!(time >= TIMESTAMP_MIN_MS && time <= TIMESTAMP_MAX_MS)) return new Date(ms).toISOString();
	const days = Math.floor(time / DAY_MS);
	// Days from 0000-03-01 in 400-year eras: a year then ends with February and its leap day.
	const shifted = days + 719_468;
	const era = Math.floor(shifted / 146_097);
	const dayOfEra = shifted - era * 146_097;
	const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
	const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
	const marchMonth = Math.floor((5 * dayOfYear + 2) / 153);
	const day = dayOfYear - Math.floor((153 * marchMonth + 2) / 5) + 1;
	const month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9;
	const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
	let rest = time - days * DAY_MS;
	const millis = rest % 1000;
	rest = (rest - millis) / 1000;
	const seconds = rest % 60;
	rest = (rest - seconds) / 60;
	const minutes = rest % 60;
	const hours = (rest - minutes) / 60;
	const yyyy = year < 1000 ? String(year).padStart(4, "0") : String(year);
	return `${yyyy}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[millis]}Z`;
}

/** Any RFC 3339 time with an offset, as epoch milliseconds (sub-millisecond digits truncated). */
export function parseTimestamp(value: unknown, field: string): number {
	const invalid = () => invalidArgument(`${field} must be an RFC 3339 timestamp such as "2025-03-01T09:30:00Z"`);
	const match = typeof value === "string" ? RFC3339.exec(value) : null;
	if (match === null) throw invalid();
	const [, year, month, day, hour, minute, second, fraction = "", zulu, sign, offsetHour, offsetMinute] = match;
	const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number);
	if (y < 1 || mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59) throw invalid();
	const lastDay = DAYS_IN_MONTH[mo - 1] + (mo === 2 && isLeapYear(y) ? 1 : 0);
	if (d < 1 || d > lastDay) throw invalid();
	let offsetMs = 0;
	if (zulu === undefined) {
		const oh = Number(offsetHour);
		const om = Number(offsetMinute);
		if (oh > 23 || om > 59) throw invalid();
		offsetMs = (sign === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
	}
	// Date.UTC reads years 0-99 as 1900-1999, so the year is set separately.
	const date = new Date(0);
	date.setUTCFullYear(y, mo - 1, d);
	date.setUTCHours(h, mi, s, Number(fraction.padEnd(3, "0").slice(0, 3)));
	const ms = date.getTime() - offsetMs;
	if (ms < TIMESTAMP_MIN_MS || ms > TIMESTAMP_MAX_MS) throw invalid();
	return ms;
}

function isLeapYear(year: number): boolean {
	return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** 64-bit integers are emitted as decimal strings. */
export function toInt64(n: number | bigint): string {
	return BigInt(n).toString();
}

function parseInteger(value: unknown, field: string, min: number, max: number): number {
	let n: number;
	if (typeof value === "number") {
		n = value;
	} else if (typeof value === "string" && /^-?\d+$/.test(value)) {
		n = Number(value);
	} else {
		throw invalidArgument(`${field} must be an integer`);
	}
	if (!Number.isInteger(n) || n < min || n > max) {
		throw invalidArgument(`${field} must be an integer between ${min} and ${max}`);
	}
	return n;
}

/** An int64 given as a number or a decimal string, limited to what a JS number holds exactly. */
export function parseInt64(value: unknown, field: string): number {
	return parseInteger(value, field, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
}

export function parseInt32(value: unknown, field: string): number {
	return parseInteger(value, field, -(2 ** 31), 2 ** 31 - 1);
}

/** A JSON boolean, or from a query string `true`/`false` in any case or `1`/`0`. */
export function parseBool(value: unknown, field: string): boolean {
	if (typeof value === "boolean") return value;
	if (typeof value === "string") {
		const lower = value.toLowerCase();
		if (lower === "true" || value === "1") return true;
		if (lower === "false" || value === "0") return false;
	}
	throw invalidArgument(`${field} must be true or false`);
}

/** An enum value by name (case-sensitive, as proto) or by number; `names` is indexed by number. */
export function parseEnum<const T extends string>(value: unknown, names: readonly T[], field: string): T {
	const byName = names.find((name) => name === value);
	if (byName !== undefined) return byName;
	const index =
		typeof value === "number" ? value : typeof value === "string" && /^\d+$/.test(value) ? Number(value) : -1;
	if (Number.isInteger(index) && index >= 0 && index < names.length) return names[index];
	throw invalidArgument(`${field} must be one of ${names.join(", ")}`);
}

const EQUALS = 0x3d;
const URL_SAFE = ["-", "_"];
const STANDARD = ["+", "/"];
const URL_SAFE_BYTES = [0x2d, 0x5f];
const STANDARD_BYTES = [0x2b, 0x2f];

/**
 * ASCII base64 is decoded this many characters at a time: each slice a small string on the
 * JavaScript heap, which dies young, rather than one string of megabytes outside it, which
 * counts towards V8's external-memory limit as a buffer does (issue 19). A multiple of 4.
 */
const DECODE_SLICE_CHARS = 64 * 1024;

/**
 * The bytes of base64 text, given as a string or as its ASCII bytes (a request body's), by
 * the rules of parseBytes; undefined when it is not base64. Bytes given as bytes are decoded
 * into `allocate(length)`, a slice at a time. Node decodes either alphabet under either name,
 * so the alphabets are looked for only to refuse a text that mixes them; in bytes, slice by
 * slice, while the slice is in the CPU's cache for its decoding, rather than in passes over
 * megabytes (issue 19).
 */
export function decodeBase64Text(text: string | Buffer, allocate: (length: number) => Buffer = Buffer.allocUnsafeSlow): Buffer | undefined {
	const codeAt = (at: number) => (typeof text === "string" ? text.charCodeAt(at) : text[at]);
	let end = text.length;
	for (let trailing = 0; trailing < 2 && end > 0 && codeAt(end - 1) === EQUALS; trailing++) end--;
	const padding = text.length - end;
	// A lone trailing character holds only 6 bits, less than a byte.
	if (end % 4 === 1) return undefined;
	if (padding > 0 && (end + padding) % 4 !== 0) return undefined;
	if (typeof text === "string") {
		const data = text.slice(0, end);
		const has = (characters: string[]) => characters.some(character => data.includes(character));
		if (has(URL_SAFE) && has(STANDARD)) return undefined;
		const bytes = Buffer.from(data, "base64");
		return bytes.length === Math.floor((end * 3) / 4) ? bytes : undefined;
	}
	const bytes = allocate(Math.floor((end * 3) / 4));
	let urlSafe = false;
	let standard = false;
	for (let from = 0; from < end; from += DECODE_SLICE_CHARS) {
		const to = Math.min(end, from + DECODE_SLICE_CHARS);
		const slice = text.subarray(from, to);
		const has = (characters: number[]) => characters.some(character => slice.includes(character));
		urlSafe ||= has(URL_SAFE_BYTES);
		standard ||= has(STANDARD_BYTES);
		if (urlSafe && standard) return undefined;
		const written = bytes.write(text.toString("latin1", from, to), (from / 4) * 3, "base64");
		if (written !== Math.floor(((to - from) * 3) / 4)) return undefined;
	}
	return bytes;
}

/**
 * bytes: standard or URL-safe base64 (not mixed, as Go's protojson decides between them),
 * padding optional. Checked through the decoder rather than a pattern over the text: a
 * pattern costs about ten times the decoding on a chunk of megabytes (issue 19). Buffer.from
 * skips what is not of its alphabet (whitespace, other characters) and stops at an inner `=`,
 * so a text holding any of them decodes to fewer bytes than its length promises.
 */
export function parseBytes(value: unknown, field: string): Buffer {
	const bytes = typeof value === "string" ? decodeBase64Text(value) : undefined;
	if (bytes === undefined) throw invalidArgument(`${field} must be base64`);
	return bytes;
}

/** bytes on output: standard base64 with padding. */
export function toBytes(buf: Uint8Array): string {
	return Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString("base64");
}
