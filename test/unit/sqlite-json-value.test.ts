import { decodeJson, encodeJson } from "../../shared/store/sqlite/json-value.js";

describe("decodeJson (the SQLite store's document texts)", () => {
	test("encoded dates come back as Dates, at any depth", () => {
		const doc = { at: new Date(1_700_000_000_000), list: [{ when: new Date(0) }], note: "x" };
		expect(decodeJson(encodeJson(doc))).toEqual(doc);
	});

	test("the date key's name elsewhere in a text changes nothing", () => {
		for (const value of [{ content: "$$date" }, { content: '{"$$date":1}' }, { tags: ["$$date", "a"] }, { nested: { text: "see $$date: 5" } }]) {
			expect(decodeJson(JSON.stringify(value))).toEqual(value);
		}
	});

	test("texts without a date parse as plain JSON", () => {
		expect(decodeJson('{"a":[1,{"b":null}],"c":"d"}')).toEqual({ a: [1, { b: null }], c: "d" });
	});
});
