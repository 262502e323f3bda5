import fc from "fast-check";
import { queryKey } from "../../shared/store/sqlite/query-key.js";

function hasNegativeZero(value: unknown): boolean {
	if (Object.is(value, -0)) return true;
	return typeof value === "object" && value !== null && Object.values(value).some(hasNegativeZero);
}

describe("queryKey (the SQLite store's translation cache key)", () => {
	test("a query of JSON values is named by its JSON text", () => {
		fc.assert(
			fc.property(
				fc.jsonValue().filter(value => !hasNegativeZero(value)),
				value => {
					expect(queryKey(["find", value, { sort: { a: 1 } }])).toBe(JSON.stringify(["find", value, { sort: { a: 1 } }]));
				}
			)
		);
	});

	test.each([
		["a Date", { at: new Date(0) }],
		["a RegExp", { name: /^a/ }],
		["an undefined field", { a: undefined }],
		// eslint-disable-next-line no-sparse-arrays -- the hole is the case
		["a hole in an array", { $in: [1, , 2] }],
		["NaN", { n: Number.NaN }],
		["Infinity", { n: Number.POSITIVE_INFINITY }],
		["-0", { n: -0 }],
		["a BigInt", { n: 1n }],
		["a class instance", { m: new Map() }],
		["a function", { f: () => 1 }],
		["a nested Date", ["merged", [{ a: { $gt: new Date(0) } }], { limit: 1 }]]
	])("a query holding %s has no key", (_label, query) => {
		expect(queryKey(query)).toBeUndefined();
	});

	test("an object without a prototype is a plain one", () => {
		const filter = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
		expect(queryKey(filter)).toBe('{"a":1}');
	});
});
