import type { Token } from "marked";
import { childTokens } from "./markdown.js";

/**
 * The literal text of paragraphs, headings, list items, block quotes, emphasis, strikethrough
 * and table cells, where tags (contract 5.1) and mentions are found. Runs of adjacent text
 * tokens are one string; anything else (code, math, HTML, links, images, line breaks, emphasis
 * delimiters) ends a run.
 */
export function textRuns(tokens: readonly Token[], onRun: (run: TextRun) => void): void {
	for (const block of tokens) blockRuns(block, onRun);
}

/** Literal text with the positions of characters written as backslash escapes (an escaped `#` starts no tag). */
export interface TextRun {
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
