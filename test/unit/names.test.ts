import {
	INSTANCE_SETTING_KEYS,
	formatMemberName,
	formatName,
	formatReactionName,
	formatSettingName,
	formatShareName,
	parseMemberName,
	parseName,
	parseReactionName,
	parseSettingKey,
	parseSettingName,
	parseShareName
} from "../../shared/names.js";
import type { NameKind } from "../../shared/names.js";
import { expectInvalidArgument, thrownServiceError } from "../support/service-errors.js";

const KINDS: [NameKind, string][] = [
	["user", "users"],
	["memo", "memos"],
	["attachment", "attachments"],
	["space", "spaces"],
	["identity-provider", "identity-providers"]
];

describe("top-level names", () => {
	test.each(KINDS)("%s names live in %s", (kind, collection) => {
		expect(formatName(kind, "abc")).toBe(`${collection}/abc`);
		expect(parseName(kind, `${collection}/abc`, "name")).toBe("abc");
	});

	test.each(KINDS)("%s: parse inverts format", (kind) => {
		for (const id of ["a", "Memo-1", "x".repeat(36), "3f2b8c1e-5a7d-4e2f-9b1c-0d6e7f8a9b0c"]) {
			expect(parseName(kind, formatName(kind, id), "name")).toBe(id);
		}
	});

	test("a space name carrying a UUID parses", () => {
		expect(parseName("space", "spaces/3f2b8c1e-5a7d-4e2f-9b1c-0d6e7f8a9b0c", "space")).toBe(
			"3f2b8c1e-5a7d-4e2f-9b1c-0d6e7f8a9b0c"
		);
	});

	test.each([
		["notes/1", "wrong collection"],
		["users/abc", "another kind's collection"],
		["Memos/abc", "collection in another case"],
		["memo/abc", "singular collection"],
		["memos/", "empty id"],
		["memos", "no id segment"],
		["", "empty name"],
		["abc", "bare id"],
		["memos/abc/def", "extra segment"],
		["memos/abc/", "trailing slash"],
		["/memos/abc", "leading slash"],
		["memos//abc", "empty middle segment"],
		["memos/-abc", "leading hyphen"],
		["memos/abc-", "trailing hyphen"],
		[`memos/${"a".repeat(37)}`, "37-character id"],
		["memos/mémo", "non-ASCII letter"],
		["memos/😀", "emoji"],
		["memos/a b", "space inside the id"],
		[" memos/abc", "leading whitespace"],
		["memos/abc ", "trailing whitespace"],
		["memos/a_b", "underscore"],
		["memos/abc\n", "trailing newline"]
	])("%j (%s) is INVALID_ARGUMENT naming the field", (name) => {
		expectInvalidArgument(() => parseName("memo", name, "parent"), "parent");
	});

	test("the error quotes the expected form", () => {
		expect(thrownServiceError(() => parseName("identity-provider", "idps/x", "idp")).message).toContain(
			"identity-providers/{identity-provider}"
		);
	});

	test("a 36-character id is accepted, a 37-character one is not", () => {
		expect(parseName("attachment", `attachments/${"a".repeat(36)}`, "attachment")).toBe("a".repeat(36));
		expectInvalidArgument(() => parseName("attachment", `attachments/${"a".repeat(37)}`, "attachment"), "attachment");
	});
});

describe("reaction names", () => {
	test("format and parse", () => {
		const name = formatReactionName("p1", "Hk3v9TqLm2Wb7xYc4RzN8a");
		expect(name).toBe("memos/p1/reactions/Hk3v9TqLm2Wb7xYc4RzN8a");
		expect(parseReactionName(name, "name")).toEqual({ memo: "p1", reaction: "Hk3v9TqLm2Wb7xYc4RzN8a" });
	});

	test.each([
		"memos/p1/reactions",
		"memos/p1/reactions/",
		"memos/p1/shares/r1",
		"memos/p1/reactions/r1/x",
		"memos//reactions/r1",
		"users/p1/reactions/r1",
		"memos/p1",
		"memos/p1/reactions/r 1"
	])("%j is INVALID_ARGUMENT", (name) => {
		expectInvalidArgument(() => parseReactionName(name, "reaction"), "reaction");
	});
});

describe("share names", () => {
	test("format and parse", () => {
		const name = formatShareName("p1", "7GkP2xQwRt9LmZc4VbN8sD");
		expect(name).toBe("memos/p1/shares/7GkP2xQwRt9LmZc4VbN8sD");
		expect(parseShareName(name, "name")).toEqual({ memo: "p1", share: "7GkP2xQwRt9LmZc4VbN8sD" });
	});

	test.each(["memos/p1/shares", "memos/p1/reactions/s1", "memos/p1/shares/s1/extra", "memos/-p1/shares/s1"])(
		"%j is INVALID_ARGUMENT",
		(name) => {
			expectInvalidArgument(() => parseShareName(name, "share"), "share");
		}
	);
});

describe("space member names", () => {
	test("format and parse", () => {
		const name = formatMemberName("team-a", "bob");
		expect(name).toBe("spaces/team-a/members/bob");
		expect(parseMemberName(name, "name")).toEqual({ space: "team-a", username: "bob" });
	});

	test.each(["spaces/team-a/members", "spaces/team-a/member/bob", "spaces/team-a/members/bob/x", "memos/a/members/b"])(
		"%j is INVALID_ARGUMENT",
		(name) => {
			expectInvalidArgument(() => parseMemberName(name, "member"), "member");
		}
	);
});

describe("instance setting names", () => {
	test.each(INSTANCE_SETTING_KEYS)("%s round-trips", (key) => {
		expect(formatSettingName(key)).toBe(`instance/settings/${key}`);
		expect(parseSettingName(formatSettingName(key), "names")).toBe(key);
	});

	test("the seven keys of the contract", () => {
		expect([...INSTANCE_SETTING_KEYS].sort()).toEqual(
			["ACCESS", "AI", "GENERAL", "MEMO_RELATED", "NOTIFICATION", "STORAGE", "TAGS"].sort()
		);
	});

	test.each([
		["general", "GENERAL"],
		["Memo_Related", "MEMO_RELATED"],
		["ai", "AI"]
	])("the key matches case-insensitively: %s → %s", (raw, key) => {
		expect(parseSettingKey(raw, "setting")).toBe(key);
		expect(parseSettingName(`instance/settings/${raw}`, "setting")).toBe(key);
	});

	test.each(["FOO", "", "GENERAL ", "MEMO-RELATED", "aı", "TAGſ", "ＧＥＮＥＲＡＬ"])(
		"key %j is INVALID_ARGUMENT",
		(raw) => {
			expectInvalidArgument(() => parseSettingKey(raw, "setting"), "setting");
		}
	);

	test.each([
		"instance/settings/",
		"instance/settings/GENERAL/extra",
		"instance/settings",
		"instance/GENERAL",
		"settings/GENERAL",
		"Instance/settings/GENERAL",
		"instance/settings/UNKNOWN",
		"/instance/settings/GENERAL",
		""
	])("name %j is INVALID_ARGUMENT", (name) => {
		expectInvalidArgument(() => parseSettingName(name, "names[0]"), "names[0]");
	});
});
