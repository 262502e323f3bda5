import { parseUpdateMask } from "../../shared/field-mask.js";
import { expectInvalidArgument } from "../support/service-errors.js";

const MEMO_PATHS = ["content", "visibility", "pinned", "state", "create_time", "update_time", "display_time", "location"];
const SETTING_PATHS = ["general_setting", "general_setting.disallow_user_registration", "disallow_user_registration"];

describe("parseUpdateMask", () => {
	test("splits on commas", () => {
		expect(parseUpdateMask("content,visibility", MEMO_PATHS)).toEqual(["content", "visibility"]);
	});

	test("ignores whitespace around paths and commas", () => {
		expect(parseUpdateMask("  content , visibility\t,pinned  ", MEMO_PATHS)).toEqual([
			"content",
			"visibility",
			"pinned"
		]);
	});

	test("normalises lowerCamelCase to snake_case", () => {
		expect(parseUpdateMask("createTime,displayTime", MEMO_PATHS)).toEqual(["create_time", "display_time"]);
	});

	test("accepts snake_case as is", () => {
		expect(parseUpdateMask("update_time", MEMO_PATHS)).toEqual(["update_time"]);
	});

	test("collapses duplicates, including one path written both ways, keeping first-named order", () => {
		expect(parseUpdateMask("visibility,createTime,content,create_time,visibility", MEMO_PATHS)).toEqual([
			"visibility",
			"create_time",
			"content"
		]);
	});

	test("a single path", () => {
		expect(parseUpdateMask("state", MEMO_PATHS)).toEqual(["state"]);
	});

	test.each(["*", "content,*"])("%j is INVALID_ARGUMENT naming *", (mask) => {
		expectInvalidArgument(() => parseUpdateMask(mask, MEMO_PATHS), '"*"');
	});

	test.each([
		["creator", "creator"],
		["content,name", "name"],
		["createtime", "createtime"],
		["CreateTime", "CreateTime"],
		["create-time", "create-time"],
		["create time", "create time"],
		["contént", "contént"],
		["_content", "_content"],
		["content_", "content_"]
	])("unknown or malformed path in %j is INVALID_ARGUMENT naming %j", (mask, path) => {
		expectInvalidArgument(() => parseUpdateMask(mask, MEMO_PATHS), `"${path}"`);
	});

	test.each(["content,,visibility", "content,", ",content", " , "])("an empty path in %j is INVALID_ARGUMENT", (mask) => {
		expectInvalidArgument(() => parseUpdateMask(mask, MEMO_PATHS), "updateMask");
	});

	describe("missing or empty mask", () => {
		test.each([undefined, "", "   ", "\t"])("%j is INVALID_ARGUMENT when required", (mask) => {
			expectInvalidArgument(() => parseUpdateMask(mask, MEMO_PATHS, { required: true }), "updateMask");
		});

		test.each([undefined, "", "   "])("%j is an empty list when optional", (mask) => {
			expect(parseUpdateMask(mask, MEMO_PATHS)).toEqual([]);
			expect(parseUpdateMask(mask, MEMO_PATHS, { required: false })).toEqual([]);
		});
	});

	describe("nested paths", () => {
		test("are INVALID_ARGUMENT unless allowed, even when listed", () => {
			expectInvalidArgument(
				() => parseUpdateMask("general_setting.disallow_user_registration", SETTING_PATHS),
				"general_setting.disallow_user_registration"
			);
			expectInvalidArgument(() => parseUpdateMask("location.latitude", MEMO_PATHS), "location.latitude");
		});

		test("are normalised segment by segment when allowed", () => {
			expect(
				parseUpdateMask("generalSetting.disallowUserRegistration", SETTING_PATHS, { allowNested: true })
			).toEqual(["general_setting.disallow_user_registration"]);
		});

		test("top-level paths stay accepted alongside", () => {
			expect(
				parseUpdateMask("general_setting,disallowUserRegistration", SETTING_PATHS, { allowNested: true })
			).toEqual(["general_setting", "disallow_user_registration"]);
		});

		test.each(["general_setting.", ".general_setting", "general_setting..x", "general_setting.unknown_field"])(
			"%j is INVALID_ARGUMENT",
			(mask) => {
				expectInvalidArgument(() => parseUpdateMask(mask, SETTING_PATHS, { allowNested: true }), `"${mask}"`);
			}
		);
	});

	test("the accepted list is not modified", () => {
		const accepted = ["content"];
		parseUpdateMask("content", accepted);
		expect(accepted).toEqual(["content"]);
	});
});
