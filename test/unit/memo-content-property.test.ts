import { deriveContent } from "../../services/memos/content/derive-content.js";

const propertyOf = (content: string) => deriveContent(content).property;
const snippetOf = (content: string) => deriveContent(content).snippet;

describe("property flags (contract 5.2)", () => {
	const flags: [string, string, Partial<Record<"hasLink" | "hasCode" | "hasTaskList" | "hasIncompleteTasks", boolean>>][] = [
		["plain text", "just words", { hasLink: false, hasCode: false, hasTaskList: false, hasIncompleteTasks: false }],
		["inline link", "[x](https://a.example)", { hasLink: true }],
		["reference link", "[x][r]\n\n[r]: https://a.example", { hasLink: true }],
		["an unused reference definition is no link", "text\n\n[r]: https://a.example", { hasLink: false }],
		["angle-bracket autolink", "<https://a.example>", { hasLink: true }],
		["bare https URL", "see https://a.example/x", { hasLink: true }],
		["bare www URL", "see www.example.com", { hasLink: true }],
		["e-mail autolink", "write to someone@example.com", { hasLink: true }],
		["a URL in code is no link", "`https://a.example`", { hasLink: false, hasCode: true }],
		["an image is no link", "![alt](https://a.example/i.png)", { hasLink: false }],
		["inline code", "use `x`", { hasCode: true }],
		["fenced code", "```js\nx\n```", { hasCode: true }],
		["indented code", "para\n\n    code", { hasCode: true }],
		["math is no code", "$x$", { hasCode: false }],
		["unchecked task", "- [ ] a", { hasTaskList: true, hasIncompleteTasks: true }],
		["checked task", "- [x] a", { hasTaskList: true, hasIncompleteTasks: false }],
		["upper-case X with a star bullet", "* [X] a", { hasTaskList: true, hasIncompleteTasks: false }],
		["ordered task item", "1. [ ] a", { hasTaskList: true, hasIncompleteTasks: true }],
		["mixed tasks", "- [x] a\n- [ ] b", { hasTaskList: true, hasIncompleteTasks: true }],
		["nested task", "- a\n  - [ ] b", { hasTaskList: true, hasIncompleteTasks: true }],
		["a plain list is no task list", "- a\n- b", { hasTaskList: false }],
		["task syntax in code is no task", "```\n- [ ] a\n```", { hasTaskList: false, hasCode: true }],
		["link in a table cell", "| [x](u) |\n| --- |\n| y |", { hasLink: true }]
	];
	it.each(flags)("%s", (_name, content, expected) => {
		expect(propertyOf(content)).toMatchObject(expected);
	});

	const titles: [string, string, string][] = [
		["a level-1 heading first", "# Plan\nbody", "Plan"],
		["a level-2 heading first is no title", "## Plan", ""],
		["a paragraph first is no title", "intro\n\n# Plan", ""],
		["blank lines before the heading", "\n\n# Plan", "Plan"],
		["plain text of an inline-formatted heading", "# **Big** `code` [link](u) #tag", "Big code link #tag"],
		["setext level-1 heading", "Plan\n====", "Plan"],
		["character references decoded", "# A &amp; B", "A & B"],
		["empty content", "", ""]
	];
	it.each(titles)("title: %s", (_name, content, expected) => {
		expect(propertyOf(content).title).toBe(expected);
	});
});

describe("snippet (contract 5.3)", () => {
	const cases: [string, string, string][] = [
		["the contract's example", "# Plan\n- [ ] draft #work/q1", "Plan draft #work/q1"],
		["blocks joined by one space", "one\n\ntwo\n\n\nthree", "one two three"],
		["soft breaks become spaces", "one\ntwo", "one two"],
		["hard breaks become spaces", "one  \ntwo", "one two"],
		["code blocks skipped", "before\n\n```\ncode\n```\n\nafter", "before after"],
		["inline code kept", "use `npm test` now", "use npm test now"],
		["link text kept, destination dropped", "read [the docs](https://x.example) now", "read the docs now"],
		["bare URLs kept", "see https://x.example/a#b", "see https://x.example/a#b"],
		["tags kept with their hash", "#work and #home", "#work and #home"],
		["emphasis markers dropped", "**bold** *em* ~~del~~", "bold em del"],
		["images dropped", "a ![alt](i.png) b", "a  b"],
		["raw HTML dropped", "a <b>bold</b> c", "a bold c"],
		["block quote text", "> quoted\n\nafter", "quoted after"],
		["list items", "- one\n- two", "one two"],
		["table cells", "| a | b |\n| --- | --- |\n| c | d |", "a b c d"],
		["escapes resolved", "\\#not \\*star\\*", "#not *star*"],
		["character references decoded", "a &amp; b &lt;c&gt;", "a & b <c>"],
		["trimmed", "   padded   ", "padded"],
		["empty", "", ""],
		["exactly 64 characters is kept", "a".repeat(64), "a".repeat(64)],
		["cut at the last whitespace", `${"word ".repeat(20)}`, `${"word ".repeat(12).trim()} ...`],
		["cut without whitespace", "x".repeat(70), `${"x".repeat(64)} ...`],
		["counts code points, not UTF-16 units", "😀".repeat(64), "😀".repeat(64)],
		["long emoji text cut at 64 code points", "😀".repeat(65), `${"😀".repeat(64)} ...`]
	];
	it.each(cases)("%s", (_name, content, expected) => {
		expect(snippetOf(content)).toBe(expected);
	});

	it("cuts a word that crosses the 64th character back to the previous space", () => {
		const content = `${"a".repeat(60)} bcdefgh`;
		expect(snippetOf(content)).toBe(`${"a".repeat(60)} ...`);
	});
});
