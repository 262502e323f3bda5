import type { Token } from "marked";
import { childTokens } from "./markdown.js";

/**
 * Tags (contract 5.1): found only in literal text of paragraphs, headings, list items, block
 * quotes, emphasis, strikethrough and table cells. Runs of adjacent text tokens are scanned as
 * one string; anything else (code, math, HTML, links, images, line breaks, emphasis delimiters)
 * ends a run, so a tag never spans one.
 */
export function extractTags(tokens: readonly Token[]): string[] {
	const tags = new Set<string>();
	const addTag = (path: string) => {
		const segments = path.split("/");
		for (let i = 1; i <= segments.length; i++) tags.add(segments.slice(0, i).join("/"));
	};
	for (const block of tokens) blockRuns(block, run => scanRun(run, addTag));
	return [...tags];
}

/** Literal text with the positions of characters written as backslash escapes (an escaped `#` starts no tag). */
interface TextRun {
	text: string;
	escaped: Set<number>;
}

function blockRuns(token: Token, onRun: (run: TextRun) => void): void {
	switch (token.type) {
		case "paragraph":
		case "heading":
		case "text":
			inlineRuns(inlineChildren(token), onRun);
			return;
		case "blockquote":
			for (const child of childTokens(token)) blockRuns(child, onRun);
			return;
		case "list":
			for (const item of token.items as Token[]) for (const child of childTokens(item)) blockRuns(child, onRun);
			return;
		case "table":
			for (const cell of token.header) inlineRuns(cell.tokens, onRun);
			for (const row of token.rows) for (const cell of row) inlineRuns(cell.tokens, onRun);
			return;
		default:
			// Code blocks, math, raw HTML, link definitions, rules and blank lines hold no tags.
			return;
	}
}

/** A block `text` token of a tight list item may carry its inline tokens, or only its text. */
function inlineChildren(token: Token): Token[] {
	const children = childTokens(token);
	if (children.length > 0 || !("text" in token) || typeof token.text !== "string") return children;
	return [{ type: "text", raw: token.text, text: token.text }];
}

function inlineRuns(tokens: readonly Token[], onRun: (run: TextRun) => void): void {
	let run: TextRun = { text: "", escaped: new Set() };
	const flush = () => {
		if (run.text.length > 0) onRun(run);
		run = { text: "", escaped: new Set() };
	};
	for (const token of tokens) {
		switch (token.type) {
			case "text":
				if (childTokens(token).length > 0) {
					flush();
					inlineRuns(childTokens(token), onRun);
				} else run.text += token.text;
				break;
			case "escape":
				run.escaped.add(run.text.length);
				run.text += token.text;
				break;
			case "strong":
			case "em":
			case "del":
				flush();
				inlineRuns(childTokens(token), onRun);
				flush();
				break;
			default:
				// Links, images, code spans, math, raw HTML and line breaks.
				flush();
		}
	}
	flush();
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
