import { ID_PATTERN } from "../../../shared/ids.js";
import { lexMarkdown } from "./markdown.js";
import { textRuns, type TextRun } from "./text-runs.js";

const NAME_CHAR = /[\p{L}\p{N}-]/u;
// What may stand right before `@`: anything but a letter, a digit or a mark (so `me@example.com` mentions nobody).
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

/**
 * The usernames `@username` mentions in a memo's Markdown (contract 17), in order of first
 * appearance, as upstream's mention parser finds them: in literal text only (never in code,
 * links or math), after a non-word character or at the start of a run, not escaped. The name
 * runs over letters, digits and hyphens and counts only when it is a valid username (1.5);
 * usernames are case-sensitive, so it is kept as written.
 */
export function mentionedUsernames(content: string): string[] {
	if (!content.includes("@")) return [];
	const names = new Set<string>();
	textRuns(lexMarkdown(content), run => scanRun(run, names));
	return [...names];
}

function scanRun(run: TextRun, names: Set<string>): void {
	const { text } = run;
	for (let at = text.indexOf("@"); at >= 0; at = text.indexOf("@", at + 1)) {
		if (run.escaped.has(at) || (at > 0 && WORD_CHAR.test(previousChar(text, at)))) continue;
		let end = at + 1;
		while (end < text.length && NAME_CHAR.test(text[end])) end++;
		const name = text.slice(at + 1, end);
		if (ID_PATTERN.test(name)) names.add(name);
	}
}

function previousChar(text: string, index: number): string {
	const low = text.charCodeAt(index - 1);
	const isLowSurrogate = low >= 0xdc00 && low <= 0xdfff;
	return isLowSurrogate && index >= 2 ? text.slice(index - 2, index) : text[index - 1];
}
