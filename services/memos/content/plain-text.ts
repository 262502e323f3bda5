import type { Token } from "marked";
import { Parser } from "htmlparser2";
import { childTokens } from "./markdown.js";

/**
 * Plain text of Markdown as the snippet and the title show it (contract 5.2, 5.3): code blocks,
 * raw HTML and images left out, inline code, link text, bare URLs and tags kept, line breaks as
 * spaces, one space between blocks.
 */
export function plainTextOfBlocks(tokens: readonly Token[]): string {
	return joinBlocks(tokens.map(blockText));
}

export function plainTextOfInline(tokens: readonly Token[]): string {
	return tokens.map(inlineText).join("").replace(/[ \t]*\n[ \t]*/g, " ").trim();
}

function joinBlocks(texts: readonly string[]): string {
	return texts.filter(text => text.length > 0).join(" ");
}

function blockText(token: Token): string {
	switch (token.type) {
		case "paragraph":
		case "heading":
		case "text":
			return childTokens(token).length > 0 ? plainTextOfInline(childTokens(token)) : plainTextOfInline([token]);
		case "blockquote":
			return plainTextOfBlocks(childTokens(token));
		case "list":
			return joinBlocks((token.items as Token[]).map(item => plainTextOfBlocks(childTokens(item))));
		case "table":
			return joinBlocks([...token.header, ...token.rows.flat()].map(cell => plainTextOfInline(cell.tokens)));
		case "mathBlock":
			return typeof token.text === "string" ? token.text : "";
		default:
			// Code blocks, raw HTML blocks, link definitions, rules and blank lines.
			return "";
	}
}

function inlineText(token: Token): string {
	switch (token.type) {
		case "text":
			return childTokens(token).length > 0 ? childTokens(token).map(inlineText).join("") : decodeCharacterReferences(token.text);
		case "escape":
		case "codespan":
			return token.text;
		case "math":
			return typeof token.text === "string" ? token.text : "";
		case "strong":
		case "em":
		case "del":
		case "link":
			return childTokens(token).map(inlineText).join("");
		case "br":
			return "\n";
		default:
			// Images, raw HTML and task checkboxes.
			return "";
	}
}

/** Text keeps character references (`&amp;`) as written; the plain text shows the characters. */
function decodeCharacterReferences(text: string): string {
	if (!text.includes("&")) return text;
	let decoded = "";
	const parser = new Parser({ ontext: chunk => void (decoded += chunk) }, { decodeEntities: true });
	parser.end(text.replaceAll("<", "&lt;"));
	return decoded;
}
