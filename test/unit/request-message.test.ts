import {
	enumOf,
	fieldOf,
	jsonName,
	messageOf,
	optionalMessageOf,
	queryBoolOf,
	queryParamOf,
	queryStringOf,
	snakeName,
	stringOf
} from "../../shared/request-message.js";
import { expectInvalidArgument } from "../support/service-errors.js";

describe("field names (contract 1.2)", () => {
	test("a field is read by its JSON name or its snake_case name, asked for by either", () => {
		expect(fieldOf({ displayName: "a" }, "displayName")).toBe("a");
		expect(fieldOf({ display_name: "b" }, "displayName")).toBe("b");
		expect(fieldOf({ display_name: "c" }, "display_name")).toBe("c");
		expect(fieldOf({ displayName: "d" }, "display_name")).toBe("d");
	});

	test("when both names are given, the JSON name wins, even when it is null", () => {
		expect(fieldOf({ displayName: "json", display_name: "snake" }, "displayName")).toBe("json");
		expect(fieldOf({ displayName: null, display_name: "snake" }, "displayName")).toBeUndefined();
	});

	test("names convert both ways", () => {
		expect(jsonName("avatar_url")).toBe("avatarUrl");
		expect(jsonName("avatarUrl")).toBe("avatarUrl");
		expect(snakeName("userInfoUrl")).toBe("user_info_url");
		expect(snakeName("title")).toBe("title");
	});

	test("inherited properties are not fields", () => {
		expect(fieldOf({}, "toString")).toBeUndefined();
	});
});

describe("null, empty and defaults (contract 1.2, 1.3)", () => {
	test("null means unset", () => {
		expect(fieldOf({ content: null }, "content")).toBeUndefined();
	});

	test("an unset or null string reads as its default \"\"; \"\" is kept", () => {
		expect(stringOf(undefined, "f")).toBe("");
		expect(stringOf(null, "f")).toBe("");
		expect(stringOf("", "f")).toBe("");
		expect(stringOf("x", "f")).toBe("x");
	});

	test("a string field of another type is INVALID_ARGUMENT naming the field", () => {
		expectInvalidArgument(() => stringOf(5, "user.email"), "user.email must be a string");
		expectInvalidArgument(() => stringOf(["a"], "user.email"), "user.email");
	});

	test("an unset or null enum reads as its zero value; names and numbers are accepted", () => {
		const names = ["ROLE_UNSPECIFIED", "ADMIN", "MEMBER"] as const;
		expect(enumOf(undefined, names, "role")).toBe("ROLE_UNSPECIFIED");
		expect(enumOf(null, names, "role")).toBe("ROLE_UNSPECIFIED");
		expect(enumOf("ADMIN", names, "role")).toBe("ADMIN");
		expect(enumOf(2, names, "role")).toBe("MEMBER");
		expectInvalidArgument(() => enumOf("", names, "role"), "role must be one of");
		expectInvalidArgument(() => enumOf("admin", names, "role"), "role must be one of");
	});

	test("a request's message: unset or null reads as empty; anything but an object is INVALID_ARGUMENT", () => {
		expect(messageOf(undefined, "memo")).toEqual({});
		expect(messageOf(null, "memo")).toEqual({});
		expect(messageOf({ a: 1 }, "memo")).toEqual({ a: 1 });
		for (const bad of ["", "x", 1, true, []]) expectInvalidArgument(() => messageOf(bad, "memo"), "memo must be a JSON object");
	});

	test("a message-typed field: unset or null reads as absent; anything but an object is INVALID_ARGUMENT", () => {
		expect(optionalMessageOf(undefined, "location")).toBeUndefined();
		expect(optionalMessageOf(null, "location")).toBeUndefined();
		expect(optionalMessageOf({}, "location")).toEqual({});
		for (const bad of ["", 0, [], false]) expectInvalidArgument(() => optionalMessageOf(bad, "location"), "location must be a JSON object");
	});
});

describe("query parameters", () => {
	test("read by either name; an empty value reads as absent", () => {
		expect(queryParamOf({ page_size: "5" }, "pageSize")).toBe("5");
		expect(queryParamOf({ pageSize: "" }, "pageSize")).toBeUndefined();
		expect(queryParamOf({}, "pageSize")).toBeUndefined();
	});

	test("a boolean parameter: absent or empty is false; true/false in any case, or 1/0", () => {
		expect(queryBoolOf({}, "force")).toBe(false);
		expect(queryBoolOf({ force: "" }, "force")).toBe(false);
		expect(queryBoolOf({ force: "TRUE" }, "force")).toBe(true);
		expect(queryBoolOf({ show_deleted: "1" }, "showDeleted")).toBe(true);
		expectInvalidArgument(() => queryBoolOf({ showDeleted: "yes" }, "showDeleted"), "showDeleted must be true or false");
	});

	test("a parameter is a single string when present", () => {
		expect(queryStringOf(undefined, "filter")).toBeUndefined();
		expect(queryStringOf("a", "filter")).toBe("a");
		expectInvalidArgument(() => queryStringOf(["a", "b"], "filter"), "filter must be given once");
	});
});
