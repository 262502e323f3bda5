import { invalidArgument } from "../errors.js";

/**
 * Regular expressions for the text tests of the filter language (contract 6.1): `contains`,
 * `startsWith`, `endsWith` and `:` are case-insensitive under Unicode simple case folding.
 *
 * Every regular expression a filter compiles to has one of the linear forms below (contract
 * 19): an escaped literal, optionally anchored at the start (`^`) and/or at the very end (END),
 * with the flags `iu`. No alternation, quantifier or group comes from the user, so matching
 * cannot backtrack beyond one literal's length at each position, in any engine; an adapter may
 * also run these forms without a regular-expression engine (linearTextForm reads them back).
 * JavaScript's `iu` matching is simple case folding; MongoDB's `i` is PCRE's Unicode folding.
 */

export type TextFunction = "contains" | "startsWith" | "endsWith";

/** Matches only at the very end of the string in both engines (PCRE's `$` also matches before a final newline). */
export const END = "(?![\\s\\S])";

const SYNTAX = /[\^$\\.*+?()[\]{}|/]/g;
const FLAGS = "iu";

function escapeLiteral(literal: string): string {
	return literal.replace(SYNTAX, "\\$&").replace(/\0/g, "\\x00");
}

/**
 * The longest pattern MongoDB accepts, in UTF-8 bytes. An escaped literal is at most twice its
 * filter's bytes, so a filter within its 8192 bytes stays well below; the check keeps that
 * true whatever the filter limit becomes.
 */
export const MAX_REGEX_BYTES = 32_764;

/** The regular expression of `fn(literal)` on a whole string, case-insensitive; INVALID_ARGUMENT when longer than a store takes. */
export function textRegex(fn: TextFunction, literal: string): RegExp {
	const escaped = escapeLiteral(literal);
	if (Buffer.byteLength(escaped, "utf8") + 2 + END.length > MAX_REGEX_BYTES) throw invalidArgument(`invalid filter: the text of ${fn}(…) is too long`);
	if (fn === "startsWith") return new RegExp(`^${escaped}`, FLAGS);
	if (fn === "endsWith") return new RegExp(`${escaped}${END}`, FLAGS);
	return new RegExp(escaped, FLAGS);
}

/** One of the linear forms, read back from a regular expression; null when `regex` is not one. */
export interface LinearTextForm {
	literal: string;
	anchoredAtStart: boolean;
	anchoredAtEnd: boolean;
}

// RegExp#source also spells line terminators as escapes (`\n`, `\u2028`).
const LINEAR_SOURCE = /^(\^?)((?:[^$\\.*+?()[\]{}|/^]|\\[\^$\\.*+?()[\]{}|/nr]|\\x00|\\u202[89])*)((?:\(\?!\[\\s\\S\]\))?)$/su;
const ESCAPED: Record<string, string> = { n: "\n", r: "\r", x00: "\0", u2028: "\u2028", u2029: "\u2029" };

export function linearTextForm(regex: RegExp): LinearTextForm | null {
	if (regex.flags !== FLAGS) return null;
	// An empty pattern's source is `(?:)`.
	const parts = LINEAR_SOURCE.exec(regex.source === "(?:)" ? "" : regex.source);
	if (parts === null) return null;
	const literal = (parts[2] as string).replace(/\\(x00|u202[89]|[\s\S])/gu, (_escape, code: string) => ESCAPED[code] ?? code);
	return { literal, anchoredAtStart: parts[1] === "^", anchoredAtEnd: parts[3] !== "" };
}
