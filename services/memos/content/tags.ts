import type { Token } from "marked";
import { textRuns, type TextRun } from "./text-runs.js";

/** Tags (contract 5.1): found only in the literal text runs of text-runs.ts, so a tag never spans a run. */
export function extractTags(tokens: readonly Token[]): string[] {
	const tags = new Set<string>();
	const addTag = (path: string) => {
		const segments = path.split("/");
		for (let i = 1; i <= segments.length; i++) tags.add(segments.slice(0, i).join("/"));
	};
	textRuns(tokens, run => scanRun(run, addTag));
	return [...tags];
}

const SEGMENT_START = /[\p{L}\p{N}_\-+&\p{Extended_Pictographic}\p{Regional_Indicator}]/u;
// Marks, the zero-width joiner, skin-tone modifiers and emoji tag characters continue a segment.
const SEGMENT_CONTINUE = /[\p{M}\u200D\p{Emoji_Modifier}\u{E0020}-\u{E007F}]/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const MARK = /\p{M}/u;
const CHARACTER_REFERENCE = /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/y;

function scanRun(run: TextRun, addTag: (path: string) => void): void {
	const { text } = run;
	let i = 0;
	while (i < text.length) {
		if (text[i] === "#" && !run.escaped.has(i)) {
			const end = scanPath(text, i + 1);
			if (end > i + 1) {
				addTag(text.slice(i + 1, end));
				i = end;
				continue;
			}
		}
		i++;
	}
}

/** The end of the `/`-separated segments starting at `start` (`start` itself when there are none). */
function scanPath(text: string, start: number): number {
	let end = scanSegment(text, start);
	if (end === start) return start;
	while (text[end] === "/") {
		const next = scanSegment(text, end + 1);
		if (next === end + 1) break;
		end = next;
	}
	return end;
}

function scanSegment(text: string, start: number): number {
	let i = start;
	let afterLetterOrDigit = false;
	while (i < text.length) {
		const char = charAt(text, i);
		if (char === "&" && isCharacterReference(text, i)) break;
		if (SEGMENT_START.test(char)) {
			afterLetterOrDigit = LETTER_OR_DIGIT.test(char);
		} else if (i > start && SEGMENT_CONTINUE.test(char)) {
			if (!MARK.test(char)) afterLetterOrDigit = false;
		} else if (i > start && (char === "'" || char === "\u2019") && afterLetterOrDigit && i + 1 < text.length && LETTER_OR_DIGIT.test(charAt(text, i + 1))) {
			afterLetterOrDigit = false;
		} else break;
		i += char.length;
	}
	return i;
}

function charAt(text: string, index: number): string {
	return String.fromCodePoint(text.codePointAt(index) as number);
}

function isCharacterReference(text: string, index: number): boolean {
	CHARACTER_REFERENCE.lastIndex = index;
	return CHARACTER_REFERENCE.test(text);
}
