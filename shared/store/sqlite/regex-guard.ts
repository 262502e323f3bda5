/**
 * The regular expressions the SQLite adapter runs: only those whose matching time cannot blow
 * up. A pattern qualifies when it has no quantifier and no back-reference, so the engine
 * tries each alternative once per start position (time bounded by text length × pattern
 * length); the one exception is a lazy `[\s\S]*?` at the start of a lookahead in a pattern
 * anchored with `^`, which scans the text once from the start (the filter compiler's
 * "some tag contains"). Literals, escaped characters, character classes (case folding is
 * spelled as classes by shared/cel/text-match.ts), `^`, `$`, groups, lookarounds and `|`
 * are allowed. Anything else is refused with an error rather than run.
 */

const ALLOWED_FLAGS = /^[imsu]*$/;
const LAZY_ANY = "[\\s\\S]*?";

export class UnsupportedRegexError extends Error {
	constructor(source: string, reason: string) {
		super(`regular expression /${source}/ is not supported by the document store: ${reason}`);
		this.name = "UnsupportedRegexError";
	}
}

export function checkRegex(regex: RegExp): void {
	const { source, flags } = regex;
	if (!ALLOWED_FLAGS.test(flags)) throw new UnsupportedRegexError(source, `flags "${flags}" (only i, m, s and u)`);
	const anchored = source.startsWith("^");
	let i = 0;
	let afterLookahead = false;
	while (i < source.length) {
		const char = source[i];
		const wasAfterLookahead = afterLookahead;
		afterLookahead = false;
		if (char === "\\") {
			i = escapeEnd(source, i);
		} else if (char === "[") {
			if (source.startsWith(LAZY_ANY, i)) {
				if (!wasAfterLookahead || !anchored) throw new UnsupportedRegexError(source, "[\\s\\S]*? only at the start of a lookahead in a pattern anchored with ^");
				i += LAZY_ANY.length;
			} else {
				i = classEnd(source, i);
			}
		} else if (char === "(") {
			const group = source.slice(i, i + 3);
			if (group === "(?=" || group === "(?!" || group === "(?:") {
				afterLookahead = group !== "(?:";
				i += 3;
			} else if (source.startsWith("(?<=", i) || source.startsWith("(?<!", i)) {
				i += 4;
			} else if (source[i + 1] === "?") {
				throw new UnsupportedRegexError(source, "named or special groups");
			} else {
				i += 1;
			}
		} else if ("*+?{".includes(char)) {
			throw new UnsupportedRegexError(source, "quantifiers (*, +, ?, {n}) are not allowed");
		} else {
			i += 1;
		}
	}
}

function escapeEnd(source: string, start: number): number {
	const next = source[start + 1];
	if (next === undefined) throw new UnsupportedRegexError(source, "a trailing backslash");
	if (/[1-9k]/.test(next)) throw new UnsupportedRegexError(source, "back-references");
	if (next === "x") return start + 4;
	if (next === "u" && source[start + 2] !== "{") return start + 6;
	if (next === "u" || next === "p" || next === "P") {
		const close = source.indexOf("}", start);
		if (close < 0) throw new UnsupportedRegexError(source, "an unterminated escape");
		return close + 1;
	}
	return start + 2;
}

function classEnd(source: string, start: number): number {
	let i = start + 1;
	while (i < source.length && source[i] !== "]") i = source[i] === "\\" ? escapeEnd(source, i) : i + 1;
	if (i >= source.length) throw new UnsupportedRegexError(source, "an unterminated character class");
	return i + 1;
}
