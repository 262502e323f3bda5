import fc from "fast-check";
import { END, MAX_REGEX_BYTES, linearTextForm, textRegex, type TextFunction } from "../../shared/cel/text-match.js";

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

	test("no pattern is longer than MongoDB accepts: a literal whose pattern would be is INVALID_ARGUMENT", () => {
		const longest = ".".repeat((MAX_REGEX_BYTES - 2 - END.length) / 2 - 1);
		for (const fn of ["contains", "startsWith", "endsWith"] as const) expect(Buffer.byteLength(textRegex(fn, longest).source)).toBeLessThanOrEqual(MAX_REGEX_BYTES);
		let refused: unknown;
		try {
			textRegex("contains", `${longest}..`);
		} catch (err) {
			refused = err;
		}
		expect(refused).toMatchObject({ type: "INVALID_ARGUMENT", message: expect.stringMatching(/too long/) });
	});

	test("anything else is not a linear form", () => {
		for (const regex of [/a|b/iu, /a+/iu, /(?=a)/iu, /a/i, /a/u, /^a$/iu, /[ab]/iu]) expect(linearTextForm(regex)).toBeNull();
	});
});
