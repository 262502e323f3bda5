import { invalidArgument } from "../errors.js";

/** Contract 6.1 and 14: a filter is at most 8192 bytes of UTF-8. */
export const FILTER_MAX_BYTES = 8192;
/** Contract 19: parentheses, brackets and unary operators nested deeper than this are refused before parsing. */
export const FILTER_MAX_DEPTH = 32;
/** Contract 19: comparisons, `in`, `:` and function tests in one filter, `tags.exists` elements included. */
export const FILTER_MAX_COMPARISONS = 256;

/**
 * A filter as the CEL parser reads it. Our grammar (contract 6.1) has two operators CEL lacks:
 * `=` (an alias of `==`) and `FIELD:STRING` (contains). Before parsing, `=` is spelled `==`
 * and such a `:` is spelled `%` (an operator the grammar otherwise rejects, of the same
 * length), and `colons` remembers which `%` stands for a `:`.
 */
export interface FilterSource {
	readonly text: string;
	readonly cel: string;
	readonly colons: ReadonlySet<number>;
	/** The 1-based position in `text` of an offset into `cel`, as messages quote it. */
	position(celOffset: number): number;
}

export function filterError(problem: string, source: FilterSource | null, celOffset?: number) {
	const where = source !== null && celOffset !== undefined ? ` at position ${source.position(celOffset)}` : "";
	return invalidArgument(`invalid filter: ${problem}${where}`);
}

type Kind = "operand" | "open" | "close" | "unary" | "other";

/**
 * Checks size and nesting and rewrites the two operators, scanning tokens the way the CEL
 * lexer does (string literals with prefixes, triple quotes and escapes; `//` comments), so
 * that nothing inside a string literal is touched. Nesting is checked here because the
 * parser recurses once per level and would overflow the stack on `((((…`.
 */
export function prepareFilterSource(text: string): FilterSource {
	if (Buffer.byteLength(text, "utf8") > FILTER_MAX_BYTES) throw invalidArgument(`invalid filter: longer than ${FILTER_MAX_BYTES} bytes`);
	let cel = "";
	const colons = new Set<number>();
	const insertions: number[] = [];
	const source: FilterSource = {
		text,
		get cel() {
			return cel;
		},
		colons,
		position(celOffset: number) {
			return celOffset - insertions.filter(at => at < celOffset).length + 1;
		}
	};
	// Unary operators pending at each open bracket level; their sum plus the level is the depth.
	const unaryAtLevel: number[] = [0];
	let depth = 0;
	let previous: { kind: Kind; identifier: boolean } = { kind: "other", identifier: false };
	let i = 0;
	const emit = (kind: Kind, chunk: string, identifier = false) => {
		cel += chunk;
		if (kind === "operand" || kind === "close") unaryAtLevel[unaryAtLevel.length - 1] = 0;
		previous = { kind, identifier };
	};
	while (i < text.length) {
		const char = text[i];
		if (char === " " || char === "\t" || char === "\n" || char === "\r") {
			cel += char;
			i++;
		} else if (char === "/" && text[i + 1] === "/") {
			const end = text.indexOf("\n", i);
			const stop = end < 0 ? text.length : end;
			cel += text.slice(i, stop);
			i = stop;
		} else if (char === '"' || char === "'" || (/[rRbB]/.test(char) && (text[i + 1] === '"' || text[i + 1] === "'"))) {
			const end = stringEnd(text, /[rRbB]/.test(char) ? i + 1 : i);
			emit("operand", text.slice(i, end));
			i = end;
		} else if (/[A-Za-z_]/.test(char)) {
			const end = runEnd(text, i, /[A-Za-z0-9_]/);
			emit("operand", text.slice(i, end), true);
			i = end;
		} else if (/[0-9]/.test(char)) {
			const end = runEnd(text, i, /[0-9A-Za-z_.]/);
			emit("operand", text.slice(i, end));
			i = end;
		} else if (char === "(" || char === "[" || char === "{") {
			depth++;
			unaryAtLevel.push(0);
			if (depth + unaryAtLevel.reduce((sum, n) => sum + n, 0) > FILTER_MAX_DEPTH) {
				throw filterError(`nested deeper than ${FILTER_MAX_DEPTH} levels`, source, cel.length);
			}
			emit("open", char);
			i++;
		} else if (char === ")" || char === "]" || char === "}") {
			if (depth > 0) {
				depth--;
				unaryAtLevel.pop();
			}
			emit("close", char);
			i++;
		} else if ((char === "!" && text[i + 1] !== "=") || char === "-") {
			unaryAtLevel[unaryAtLevel.length - 1]++;
			if (depth + unaryAtLevel.reduce((sum, n) => sum + n, 0) > FILTER_MAX_DEPTH) {
				throw filterError(`nested deeper than ${FILTER_MAX_DEPTH} levels`, source, cel.length);
			}
			emit("unary", char);
			i++;
		} else if (char === "=" || char === "!" || char === "<" || char === ">") {
			if (text[i + 1] === "=") {
				emit("other", text.slice(i, i + 2));
				i += 2;
			} else if (char === "=") {
				insertions.push(cel.length + 1);
				emit("other", "==");
				i++;
			} else {
				emit("other", char);
				i++;
			}
		} else if (char === ":" && previous.identifier && startsString(text, skipBlank(text, i + 1))) {
			colons.add(cel.length);
			emit("other", "%");
			i++;
		} else {
			emit("other", char);
			i++;
		}
	}
	return source;
}

function runEnd(text: string, start: number, pattern: RegExp): number {
	let end = start;
	while (end < text.length && pattern.test(text[end])) end++;
	return end;
}

function skipBlank(text: string, start: number): number {
	return runEnd(text, start, /[ \t\r\n]/);
}

function startsString(text: string, at: number): boolean {
	const char = text[at];
	if (char === '"' || char === "'") return true;
	return /^[rRbB]$/.test(char ?? "") && (text[at + 1] === '"' || text[at + 1] === "'");
}

/** The end of the string literal whose quote is at `quoteAt` (the text's end when unterminated: the parser reports it). */
function stringEnd(text: string, quoteAt: number): number {
	const quote = text[quoteAt];
	const triple = text[quoteAt + 1] === quote && text[quoteAt + 2] === quote;
	let i = quoteAt + (triple ? 3 : 1);
	while (i < text.length) {
		if (text[i] === "\\") i += 2;
		else if (text[i] === quote && (!triple || (text[i + 1] === quote && text[i + 2] === quote))) return i + (triple ? 3 : 1);
		else i++;
	}
	return text.length;
}
