import { parseCommentOrderBy, parseMemoOrderBy } from "../../services/memos/filter/order-by.js";
import { thrownServiceError } from "../support/service-errors.js";

describe("ListMemos orderBy (contract 6.4)", () => {
	it.each([
		[undefined, { createTime: -1, seq: -1 }],
		["", { createTime: -1, seq: -1 }],
		["   ", { createTime: -1, seq: -1 }],
		["create_time", { createTime: -1, seq: -1 }],
		["create_time asc", { createTime: 1, seq: 1 }],
		["create_time ASC", { createTime: 1, seq: 1 }],
		["update_time Desc", { updateTime: -1, seq: -1 }],
		["pinned desc, create_time asc", { pinned: -1, createTime: 1, seq: 1 }],
		["pinned asc", { pinned: 1, seq: -1 }],
		["name asc", { _id: 1 }],
		["name", { _id: -1 }],
		["name desc, create_time asc", { _id: -1 }],
		["create_time asc, update_time desc", { createTime: 1, updateTime: -1, seq: -1 }],
		["update_time desc,create_time asc", { updateTime: -1, createTime: 1, seq: 1 }],
		["  pinned\tdesc ,  name  asc  ", { pinned: -1, _id: 1 }]
	] as const)("%j", (raw, expected) => {
		const sort = parseMemoOrderBy(raw);
		expect(sort).toEqual(expected);
		expect(Object.keys(sort)).toEqual(Object.keys(expected));
	});

	it.each([
		["create_time desc,", /empty term/],
		[",create_time", /empty term/],
		["create_time,,name", /empty term/],
		["create_time, create_time asc", /given twice/],
		["title", /unknown field "title"/],
		["createTime", /unknown field/],
		["Create_time", /unknown field/],
		["create_time up", /direction must be asc or desc/],
		["create_time asc desc", /not "field \[asc\|desc\]"/],
		["__proto__", /unknown field/],
		["size", /unknown field/]
	])("%j is INVALID_ARGUMENT", (raw, message) => {
		const error = thrownServiceError(() => parseMemoOrderBy(raw));
		expect(error.type).toBe("INVALID_ARGUMENT");
		expect(error.code).toBe(400);
		expect(error.message).toMatch(message);
	});
});

describe("ListMemoComments orderBy (contract 6.4)", () => {
	it("defaults to create_time asc", () => {
		expect(parseCommentOrderBy(undefined)).toEqual({ createTime: 1, seq: 1 });
		expect(parseCommentOrderBy("")).toEqual({ createTime: 1, seq: 1 });
	});
	it("takes create_time, update_time and name", () => {
		expect(parseCommentOrderBy("update_time desc, name asc")).toEqual({ updateTime: -1, _id: 1 });
	});
	it("refuses pinned", () => {
		expect(thrownServiceError(() => parseCommentOrderBy("pinned")).message).toMatch(/unknown field "pinned"/);
	});
});
