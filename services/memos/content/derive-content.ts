import type { MemoProperty } from "../memo-doc.js";
import { lexMarkdown } from "./markdown.js";
import { deriveProperty } from "./property.js";
import { deriveSnippet } from "./snippet.js";
import { extractTags } from "./tags.js";

export interface DerivedContent {
	tags: string[];
	property: MemoProperty;
	snippet: string;
}

/** Everything contract 5 derives from a memo's Markdown, from one pass of the lexer. */
export function deriveContent(content: string): DerivedContent {
	const tokens = lexMarkdown(content);
	return { tags: extractTags(tokens), property: deriveProperty(tokens), snippet: deriveSnippet(tokens) };
}
