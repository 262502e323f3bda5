import fc from "fast-check";
import { linearTextForm, textRegex, type TextFunction } from "../../shared/cel/text-match.js";

const functions = fc.constantFrom<TextFunction>("contains", "startsWith", "endsWith");

describe("text tests compile to the linear forms of contract 19", () => {
	test("every literal reads back from its regular expression, anchored as its function says", () => {
		fc.assert(
			fc.property(fc.string({ unit: "grapheme-composite" }), fc.string({ unit: "binary" }), functions, (text, ascii, fn) => {
				for (const literal of [text, ascii, `${text}\n.*(a|b)+$\\0\0[x]{2}\u2028/`]) {
					expect(linearTextForm(textRegex(fn, literal))).toEqual({ literal, anchoredAtStart: fn === "startsWith", anchoredAtEnd: fn === "endsWith" });
				}
			}),
			{ numRuns: 300, seed: 12 }
		);
	});

	test("matching is the literal, case-insensitive under simple case folding, never a pattern", () => {
		expect(textRegex("contains", "a.c").test("ABC")).toBe(false);
		expect(textRegex("contains", "a.c").test("xA.Cx")).toBe(true);
		expect(textRegex("startsWith", "STRASSE").test("strasse 1")).toBe(true);
		expect(textRegex("contains", "k").test("\u212a")).toBe(true);
		expect(textRegex("endsWith", "x").test("ax\n")).toBe(false);
		expect(textRegex("endsWith", "(x)").test("a(X)")).toBe(true);
	});

	test("anything else is not a linear form", () => {
		for (const regex of [/a|b/iu, /a+/iu, /(?=a)/iu, /a/i, /a/u, /^a$/iu, /[ab]/iu]) expect(linearTextForm(regex)).toBeNull();
	});
});
