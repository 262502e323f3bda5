import type { Token } from "marked";
import { plainTextOfBlocks } from "./plain-text.js";

const SNIPPET_LENGTH = 64;

/** The snippet of contract 5.3: plain text cut to 64 code points at a word boundary, then " ...". */
export function deriveSnippet(tokens: readonly Token[]): string {
	const text = plainTextOfBlocks(tokens).trim();
	const codePoints = [...text];
	if (codePoints.length <= SNIPPET_LENGTH) return text;
	let cut = codePoints.slice(0, SNIPPET_LENGTH).join("");
	const lastSpace = cut.search(/\s\S*$/u);
	if (lastSpace > 0) cut = cut.slice(0, lastSpace);
	return `${cut.trimEnd()} ...`;
}
