import type { MemoDoc } from "../../services/memos/memo-doc.js";
import { memoUpdate, parseUpdateMemo } from "../../services/memos/memo-update.js";
import { memoDoc } from "../support/memo-doc.js";
import { codeOf } from "../support/service-errors.js";

const NOW = Date.UTC(2025, 5, 1);

const memo = (overrides: Partial<MemoDoc> = {}): MemoDoc => memoDoc({ content: "old", snippet: "old", createTime: 1, updateTime: 2, ...overrides });

const parse = (updateMask: unknown, patch: Record<string, unknown>) => parseUpdateMemo({ updateMask, patch }, 8192, NOW);

describe("UpdateMemo input (contract 7.5)", () => {
	test("only masked fields are read; updateTime is now unless update_time is masked", () => {
		expect(parse("pinned", { pinned: true, content: "ignored" })).toEqual({ pinned: true, updateTime: NOW });
		expect(parse("update_time", { updateTime: "2020-01-01T00:00:00Z" })).toEqual({ updateTime: Date.UTC(2020, 0, 1) });
		expect(parse("updateTime", {})).toEqual({ updateTime: NOW });
	});

	test("unset values read as proto defaults; location unset removes it", () => {
		expect(parse("content,pinned,location,visibility,space", {})).toEqual({
			content: "",
			pinned: false,
			location: null,
			visibility: "PRIVATE",
			spaceId: null,
			updateTime: NOW
		});
	});

	test.each([
		[undefined],
		[""],
		["content,nope"],
		["display_time"],
		["location.latitude"],
		[["content", "pinned"]]
	])("mask %p is INVALID_ARGUMENT", mask => {
		expect(codeOf(() => parse(mask, { content: "x" }))).toBe("INVALID_ARGUMENT");
	});

	test.each([
		["state unset", "state", {}],
		["state STATE_UNSPECIFIED", "state", { state: "STATE_UNSPECIFIED" }],
		["state 0", "state", { state: 0 }],
		["create_time unset", "create_time", {}],
		["create_time as a number", "create_time", { createTime: 12 }],
		["content over the limit", "content", { content: "x".repeat(8193) }],
		["content with a lone surrogate", "content", { content: "\ud800" }],
		["an unknown visibility", "visibility", { visibility: "HIDDEN" }],
		["a malformed space", "space", { space: "spaces/" }]
	])("%s is INVALID_ARGUMENT", (_what, mask, patch) => {
		expect(codeOf(() => parse(mask, patch))).toBe("INVALID_ARGUMENT");
	});
});

describe("UpdateMemo store update", () => {
	test("new content recomputes tags, property and snippet", () => {
		const update = memoUpdate(memo(), { content: "# T\n#a/b", updateTime: NOW });
		expect(update.$set).toMatchObject({ content: "# T\n#a/b", tags: ["a", "a/b"], updateTime: NOW });
		expect((update.$set?.property as Record<string, unknown>).title).toBe("T");
	});

	test("SPACE visibility needs a space after the update", () => {
		expect(codeOf(() => memoUpdate(memo(), { visibility: "SPACE", updateTime: NOW }))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => memoUpdate(memo({ spaceId: "s1", visibility: "SPACE" }), { spaceId: null, updateTime: NOW }))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => memoUpdate(memo({ spaceId: "s1" }), { visibility: "SPACE", updateTime: NOW }))).toBe("OK");
		expect(codeOf(() => memoUpdate(memo({ spaceId: "s1", visibility: "SPACE" }), { spaceId: null, visibility: "PUBLIC", updateTime: NOW }))).toBe(
			"OK"
		);
	});

	test("sets exactly the changed fields", () => {
		expect(memoUpdate(memo(), { pinned: true, state: "ARCHIVED", location: null, updateTime: NOW })).toEqual({
			$set: { pinned: true, state: "ARCHIVED", location: null, updateTime: NOW }
		});
	});
});
