import { contentLimitOf, leavesVisibilityUnspecified, MIN_CONTENT_LENGTH_LIMIT, readContent, readLocation, readPinned, readSpace, readState, readTime, readVisibility } from "../../services/memos/memo-fields.js";
import { codeOf, expectInvalidArgument } from "../support/service-errors.js";

/** The Memo fields a client sends (contract 4.1, 7.3, 7.5) and the content limit of contract 14. */

describe("content: at most contentLengthLimit UTF-8 bytes, never below 8192", () => {
	test("exactly the limit is accepted, one byte more is refused with both sizes named", () => {
		expect(readContent("a".repeat(10_000), 10_000)).toHaveLength(10_000);
		expectInvalidArgument(() => readContent("a".repeat(10_001), 10_000), "content is 10001 bytes", "limit of 10000 bytes");
	});

	test("the limit counts bytes, not characters", () => {
		const emoji = "🙂".repeat(MIN_CONTENT_LENGTH_LIMIT / 4);
		expect(readContent(emoji, 0)).toBe(emoji);
		expectInvalidArgument(() => readContent(emoji + "a", 0), "content is 8193 bytes");
	});

	test("a limit below the floor reads as 8192", () => {
		expect(MIN_CONTENT_LENGTH_LIMIT).toBe(8192);
		expect(codeOf(() => readContent("a".repeat(8192), 100))).toBe("OK");
		expectInvalidArgument(() => readContent("a".repeat(8193), 100), "limit of 8192 bytes");
	});

	test("unset is empty; lone surrogates, NUL and non-strings are refused", () => {
		expect(readContent(undefined, 8192)).toBe("");
		expect(readContent("🙂 paired surrogates", 8192)).toBe("🙂 paired surrogates");
		expectInvalidArgument(() => readContent("a\ud800b", 8192), "lone surrogate");
		expectInvalidArgument(() => readContent("a\u0000b", 8192), "NUL");
		expectInvalidArgument(() => readContent(42, 8192), "content must be a string");
	});
});

describe("enums and flags", () => {
	test("visibility: unset and VISIBILITY_UNSPECIFIED mean PRIVATE; names and numbers are accepted", () => {
		expect(readVisibility(undefined)).toBe("PRIVATE");
		expect(readVisibility("VISIBILITY_UNSPECIFIED")).toBe("PRIVATE");
		expect(readVisibility(0)).toBe("PRIVATE");
		expect(readVisibility("PUBLIC")).toBe("PUBLIC");
		expect(readVisibility(2)).toBe("PROTECTED");
		expect(readVisibility(4)).toBe("SPACE");
		expect(codeOf(() => readVisibility("EVERYONE"))).toBe("INVALID_ARGUMENT");
	});

	test("state: NORMAL or ARCHIVED; unset and STATE_UNSPECIFIED are refused", () => {
		expect(readState("ARCHIVED")).toBe("ARCHIVED");
		expect(readState(1)).toBe("NORMAL");
		expectInvalidArgument(() => readState(undefined), "state must be NORMAL or ARCHIVED");
		expectInvalidArgument(() => readState("STATE_UNSPECIFIED"), "state must be NORMAL or ARCHIVED");
	});

	test("pinned: a boolean; unset is false", () => {
		expect(readPinned(undefined)).toBe(false);
		expect(readPinned(true)).toBe(true);
		expect(readPinned(false)).toBe(false);
		expectInvalidArgument(() => readPinned("true"), "pinned must be true or false");
	});
});

describe("location: latitude -90…90, longitude -180…180, numbers or numeric strings", () => {
	test("the bounds themselves are accepted", () => {
		expect(readLocation({ placeholder: "Pole", latitude: 90, longitude: -180 })).toEqual({ placeholder: "Pole", latitude: 90, longitude: -180 });
		expect(readLocation({ latitude: -90, longitude: 180 })).toEqual({ placeholder: "", latitude: -90, longitude: 180 });
		expect(readLocation({ latitude: "12.5", longitude: " -3 " })).toEqual({ placeholder: "", latitude: 12.5, longitude: -3 });
	});

	test("just outside a bound is refused, naming the field", () => {
		expectInvalidArgument(() => readLocation({ latitude: 90.001 }), "location.latitude must be between -90 and 90");
		expectInvalidArgument(() => readLocation({ latitude: -90.001 }), "location.latitude");
		expectInvalidArgument(() => readLocation({ longitude: 180.001 }), "location.longitude must be between -180 and 180");
		expectInvalidArgument(() => readLocation({ longitude: -180.001 }), "location.longitude");
	});

	test("unset is no location; non-numbers are refused", () => {
		expect(readLocation(undefined)).toBeNull();
		expect(readLocation({})).toEqual({ placeholder: "", latitude: 0, longitude: 0 });
		expectInvalidArgument(() => readLocation({ latitude: "" }), "location.latitude must be a number");
		expectInvalidArgument(() => readLocation({ longitude: "   " }), "location.longitude must be a number");
		expectInvalidArgument(() => readLocation({ latitude: "north" }), "location.latitude must be a number");
		expectInvalidArgument(() => readLocation({ latitude: true }), "location.latitude must be a number");
		expectInvalidArgument(() => readLocation({ latitude: Infinity }), "location.latitude must be a number");
	});
});

describe("space and times", () => {
	test("spaces/{space} reads as its id; unset and empty are no space; others are refused", () => {
		expect(readSpace("spaces/team-1")).toBe("team-1");
		expect(readSpace(undefined)).toBeNull();
		expect(readSpace("")).toBeNull();
		expectInvalidArgument(() => readSpace(7), "space must be a resource name");
		expect(codeOf(() => readSpace("memos/x"))).toBe("INVALID_ARGUMENT");
	});

	test("a timestamp field reads as epoch milliseconds; unset stays undefined", () => {
		expect(readTime(undefined, "createTime")).toBeUndefined();
		expect(readTime("2024-01-02T03:04:05Z", "createTime")).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
		expect(codeOf(() => readTime("yesterday", "createTime"))).toBe("INVALID_ARGUMENT");
	});
});

describe("the limits and defaults the memos service reads from settings and messages", () => {
	test("contentLimitOf: the MEMO_RELATED contentLengthLimit, never below 8192; unset or not a number is 8192", () => {
		expect(contentLimitOf({ contentLengthLimit: 10000 })).toBe(10000);
		expect(contentLimitOf({ contentLengthLimit: 100 })).toBe(MIN_CONTENT_LENGTH_LIMIT);
		expect(contentLimitOf({})).toBe(MIN_CONTENT_LENGTH_LIMIT);
		expect(contentLimitOf({ contentLengthLimit: "20000" })).toBe(MIN_CONTENT_LENGTH_LIMIT);
	});

	test("a memo leaves its visibility to the default when it is unset, 0 or VISIBILITY_UNSPECIFIED", () => {
		for (const memo of [undefined, null, "memo", {}, { visibility: 0 }, { visibility: "VISIBILITY_UNSPECIFIED" }]) expect(leavesVisibilityUnspecified(memo)).toBe(true);
		for (const memo of [{ visibility: "PRIVATE" }, { visibility: 3 }, { visibility: "" }]) expect(leavesVisibilityUnspecified(memo)).toBe(false);
	});

	test("a place name of 256 characters is kept; one more is refused (contract 19)", () => {
		const name = "🙂".repeat(256);
		expect(readLocation({ placeholder: name })?.placeholder).toBe(name);
		expectInvalidArgument(() => readLocation({ placeholder: `${name}x` }), "location.placeholder must be at most 256 characters");
	});

	test("each refusal names its field", () => {
		expectInvalidArgument(() => readContent(7, 8192), "content must be a string");
		expectInvalidArgument(() => readVisibility("SECRET"), "visibility must be one of");
		expectInvalidArgument(() => readState("GONE"), "state must be one of");
		expectInvalidArgument(() => readLocation("here"), "location must be a JSON object");
		expectInvalidArgument(() => readLocation({ placeholder: 7 }), "location.placeholder must be a string");
		expectInvalidArgument(() => readSpace("memos/x"), "space must be a resource name of the form spaces/{space}");
	});
});
