import type { Token } from "marked";
import type { MemoProperty } from "../memo-doc.js";
import { walkTokens } from "./markdown.js";
import { plainTextOfInline } from "./plain-text.js";

/** The property flags and title of contract 5.2. */
export function deriveProperty(tokens: readonly Token[]): MemoProperty {
	const property: MemoProperty = { hasLink: false, hasTaskList: false, hasCode: false, hasIncompleteTasks: false, title: "" };
	walkTokens(tokens, token => {
		switch (token.type) {
			// Inline, reference and angle-bracket links, and autolinked bare URLs and e-mail addresses.
			case "link":
				property.hasLink = true;
				break;
			case "codespan":
			case "code":
				property.hasCode = true;
				break;
			case "list_item":
				if (token.task) {
					property.hasTaskList = true;
					if (!token.checked) property.hasIncompleteTasks = true;
				}
				break;
		}
	});
	const first = tokens.find(token => token.type !== "space");
	if (first?.type === "heading" && first.depth === 1) property.title = plainTextOfInline(first.tokens ?? []);
	return property;
}
