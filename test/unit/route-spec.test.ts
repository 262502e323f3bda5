import { pathParams, toAliasPath } from "../../services/gateway/route-spec.js";
import { ROUTE_TABLE } from "../../services/gateway/route-table.js";

describe("route table", () => {
	test("contract paths become path-to-regexp 8 aliases", () => {
		expect(toAliasPath("/memos/{memo}/reactions/{reaction}")).toBe("/memos/:memo/reactions/:reaction");
		expect(toAliasPath("/attachments:batchDelete")).toBe("/attachments\\:batchDelete");
		expect(toAliasPath("/memos/-/linkMetadata:batchGet")).toBe("/memos/-/linkMetadata\\:batchGet");
		expect(toAliasPath("/instance/settings/{key}:testEmail")).toBe("/instance/settings/:key\\:testEmail");
	});

	test("path parameters are listed in order", () => {
		expect(pathParams("/api/v1/spaces/{space}/members/{member}")).toEqual(["space", "member"]);
	});

	test("operations and method-path pairs are unique, and every path is under /api/v1", () => {
		const operations = ROUTE_TABLE.map(r => r.operation);
		expect(new Set(operations).size).toBe(operations.length);
		const keys = ROUTE_TABLE.map(r => `${r.method} ${r.path}`);
		expect(new Set(keys).size).toBe(keys.length);
		for (const r of ROUTE_TABLE) expect(r.path.startsWith("/api/v1/")).toBe(true);
	});
});
