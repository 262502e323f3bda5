/**
 * Time values of the filter language (contract 6.1): whole Unix seconds, as bigints while
 * they are computed so that no literal loses precision.
 */

/** Whole Unix seconds: `now` (request time, truncated) or a fixed second, plus an offset. */
export interface TimeValue {
	base: "now" | bigint;
	offset: bigint;
}

/** The seconds a time value stands for at request time `nowMs` (epoch milliseconds). */
export function resolveSeconds(value: TimeValue, nowMs: number): bigint {
	const base = value.base === "now" ? BigInt(Math.floor(nowMs / 1000)) : value.base;
	return base + value.offset;
}

const NANOS_PER_SECOND = 1_000_000_000n;
const UNIT_NANOS: Record<string, bigint> = {
	h: 3_600_000_000_000n,
	m: 60_000_000_000n,
	s: NANOS_PER_SECOND,
	ms: 1_000_000n,
	us: 1_000n,
	"\u00b5s": 1_000n,
	"\u03bcs": 1_000n,
	ns: 1n
};
const DURATION_PART = /([0-9]*)(?:\.([0-9]*))?(h|ms|m|s|us|\u00b5s|\u03bcs|ns)/y;
// CEL durations are bounded like Go's: a signed 64-bit count of nanoseconds.
const MAX_DURATION_NANOS = 2n ** 63n - 1n;

/** CEL timestamps span years 1 to 9999. */
export const MIN_TIMESTAMP_SECONDS = -62_135_596_800n;
export const MAX_TIMESTAMP_SECONDS = 253_402_300_799n;

/**
 * Seconds of a Go/CEL duration string (`"1h30m"`, `"-90s"`, `"1.5h"`, `"0"`), truncated toward
 * zero; null when the string is not a duration.
 */
export function parseDurationSeconds(text: string): bigint | null {
	let rest = text;
	let negative = false;
	if (rest.startsWith("-") || rest.startsWith("+")) {
		negative = rest.startsWith("-");
		rest = rest.slice(1);
	}
	if (rest === "0") return 0n;
	if (rest === "") return null;
	let nanos = 0n;
	DURATION_PART.lastIndex = 0;
	while (DURATION_PART.lastIndex < rest.length) {
		const match = DURATION_PART.exec(rest);
		if (match === null) return null;
		const [, whole, fraction = "", unit] = match;
		if (whole === "" && fraction === "") return null;
		const unitNanos = UNIT_NANOS[unit];
		nanos += BigInt(whole || "0") * unitNanos;
		if (fraction !== "") nanos += (BigInt(fraction) * unitNanos) / 10n ** BigInt(fraction.length);
		if (nanos > MAX_DURATION_NANOS) return null;
	}
	const seconds = nanos / NANOS_PER_SECOND;
	return negative ? -seconds : seconds;
}

/** The stored epoch milliseconds that fall in whole second `seconds`, as `[from, to)`. */
export function secondRange(seconds: bigint): { from: number; to: number } {
	// Stored times are real dates (well within ±1e13 s); clamping keeps every comparison's truth.
	const clamped = seconds < -10_000_000_000_000n ? -10_000_000_000_000n : seconds > 10_000_000_000_000n ? 10_000_000_000_000n : seconds;
	const from = Number(clamped) * 1000;
	return { from, to: from + 1000 };
}
