import type { Token, TokenizerExtension } from "marked";
import { Marked } from "marked";

/**
 * The Markdown reader behind every derived value (contract 5): CommonMark with the GitHub
 * extensions, plus math (`$…$`, `$$…$$`), which marked does not know and which must never
 * yield tags. The `marked` lexer is used because it is fast on memo-sized text and reports GFM
 * task items (`task`, `checked`) and autolinked bare URLs as link tokens.
 */

export interface MathToken {
	type: "math" | "mathBlock";
	raw: string;
	text: string;
}

const BLOCK_MATH = /^ {0,3}\$\$([\s\S]+?)\$\$[ \t]*(?:\n+|$)/;
// Pandoc's rule: no space just inside the dollars, and no digit right after the closing one.
const INLINE_MATH = /^\$\$(?!\$)([\s\S]+?)\$\$|^\$(?![\s$])((?:\\[\s\S]|[^\\$])+?)(?<![\s\\])\$(?!\d)/;

const mathBlock: TokenizerExtension = {
	name: "mathBlock",
	level: "block",
	start: src => src.match(/^ {0,3}\$\$/m)?.index,
	tokenizer(src) {
		const match = BLOCK_MATH.exec(src);
		if (match) return { type: "mathBlock", raw: match[0], text: match[1].trim() };
		return undefined;
	}
};

const inlineMath: TokenizerExtension = {
	name: "math",
	level: "inline",
	start: src => {
		const index = src.indexOf("$");
		return index < 0 ? undefined : index;
	},
	tokenizer(src) {
		const match = INLINE_MATH.exec(src);
		if (match) return { type: "math", raw: match[0], text: (match[1] ?? match[2]).trim() };
		return undefined;
	}
};

const reader = new Marked({ gfm: true, extensions: [mathBlock, inlineMath] });

export function lexMarkdown(content: string): Token[] {
	return reader.lexer(content);
}

/** The inline or block children of a token, whatever its kind (lists and tables keep theirs elsewhere). */
export function childTokens(token: Token): Token[] {
	return "tokens" in token && Array.isArray(token.tokens) ? (token.tokens as Token[]) : [];
}

/** Calls `visit` on every token in document order: blocks, list items, table cells and inline tokens. */
export function walkTokens(tokens: readonly Token[], visit: (token: Token) => void): void {
	for (const token of tokens) {
		visit(token);
		if (token.type === "list") walkTokens(token.items as Token[], visit);
		else if (token.type === "table") {
			for (const cell of token.header) walkTokens(cell.tokens, visit);
			for (const row of token.rows) for (const cell of row) walkTokens(cell.tokens, visit);
		} else walkTokens(childTokens(token), visit);
	}
}
