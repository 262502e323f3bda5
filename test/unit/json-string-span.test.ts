import fc from "fast-check";
import { stringSpanAt } from "../../services/gateway/json-string-span.js";

/** The text of the span found at `path` in `json`, or undefined. */
function found(json: string, path: string[]): string | undefined {
	const bytes = Buffer.from(json, "latin1");
	const span = stringSpanAt(bytes, path);
	return span === undefined ? undefined : bytes.subarray(span.start, span.end).toString("latin1");
}

describe("the span of a string value in JSON text", () => {
	test.each([
		['{"content":"QUJD"}', ["content"], "QUJD"],
		[' \n{ "uploadId" : "x" ,\t"content"\r\n: "QUJD" , "offset":"4" }\n', ["content"], "QUJD"],
		['{"a":{"content":"no"},"content":"yes"}', ["content"], "yes"],
		['{"attachment":{"filename":"a.bin","content":"QUJD","memo":null},"x":[1,{"content":"n"}]}', ["attachment", "content"], "QUJD"],
		['{"k\\"ey":"}{","content":"QQ","tail":[true,false,null,-1.5e3,"]"]}', ["content"], "QQ"],
		['{"\\u0063ontent":"QUJD"}', ["content"], "QUJD"],
		['{"content":""}', ["content"], ""]
	])("%s at %j is %j", (json, path, text) => {
		expect(found(json, path)).toBe(text);
	});

	test.each([
		['{"content":"QU\\/D"}', ["content"]],
		['{"content":"QUJD","content":"QUJD"}', ["content"]],
		['{"content":"QUJD","\\u0063ontent":"QQ"}', ["content"]],
		['{"attachment":{"content":"QQ"},"attachment":{}}', ["attachment", "content"]],
		['{"content":42}', ["content"]],
		['{"content":null}', ["content"]],
		['{"attachment":"QQ"}', ["attachment", "content"]],
		['{"other":"QQ"}', ["content"]],
		['["content","QQ"]', ["content"]],
		['{"content":"QQ"', ["content"]],
		['{"content":"QQ"}x', ["content"]],
		['{"content":"QQ}', ["content"]],
		['{"content" "QQ"}', ["content"]],
		['{"content":"QQ";"a":1}', ["content"]],
		['{"k\\x":1,"content":"QQ"}', ["content"]],
		["", ["content"]]
	])("none in %s at %j", (json, path) => {
		expect(found(json, path)).toBeUndefined();
	});

	test("whatever an object holds, a span found is the text JSON.parse reads at the path, and an unescaped unique one is found", () => {
		const base64 = fc.string({ unit: fc.constantFrom(..."AQZaz09+/="), maxLength: 40 });
		const key = fc.oneof(fc.constantFrom("content", "attachment", "x"), fc.string({ maxLength: 6 }));
		const field = fc.tuple(key, fc.oneof(fc.jsonValue({ maxDepth: 3 }), base64));
		fc.assert(
			fc.property(fc.array(field, { maxLength: 6 }), fc.array(field, { maxLength: 6 }), base64, fc.boolean(), (before, after, content, nested) => {
				const inner = Object.fromEntries([...before, ["content", content], ...after]);
				const json = JSON.stringify(nested ? { attachment: inner } : inner, null, nested ? 1 : undefined);
				const path = nested ? ["attachment", "content"] : ["content"];
				const span = found(json, path);
				const parsed = JSON.parse(json) as Record<string, Record<string, unknown>>;
				const value = nested ? parsed.attachment?.content : parsed.content;
				expect(span).toBe(typeof value === "string" && !JSON.stringify(value).includes("\\") ? value : undefined);
			}),
			{ numRuns: 1000 }
		);
	});
});
