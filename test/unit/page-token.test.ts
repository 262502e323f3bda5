import fc from "fast-check";
import { ServiceError } from "../../shared/errors.js";
import {
	PAGE_SIZE_DEFAULT,
	PAGE_SIZE_MAX,
	decodePageToken,
	encodePageToken,
	normalizePageSize,
	pageSizeParam
} from "../../shared/paging/page-token.js";
import { thrownServiceError } from "../support/service-errors.js";

function expectInvalidToken(fn: () => unknown): void {
	const err = thrownServiceError(fn);
	expect(err.type).toBe("INVALID_ARGUMENT");
	expect(err.message).toBe("invalid page token");
}

const b64url = (text: string) => Buffer.from(text).toString("base64url");

const OP = "ListMemos";
const QUERY = { filter: 'tag in ["work"]', orderBy: "display_time desc", state: "NORMAL", showDeleted: false };
const POSITION = { t: 1740821400123, id: "Hk3v9TqLm2Wb7xYc4RzN8a" };

describe("normalizePageSize", () => {
	test("the contract's numbers", () => {
		expect(PAGE_SIZE_DEFAULT).toBe(50);
		expect(PAGE_SIZE_MAX).toBe(1000);
	});

	test.each([
		[undefined, 50],
		[0, 50],
		[-1, 50],
		[-1000, 50],
		[Number.NaN, 50],
		[1, 1],
		[49, 49],
		[50, 50],
		[999, 999],
		[1000, 1000],
		[1001, 1000],
		[2 ** 31 - 1, 1000],
		[Number.POSITIVE_INFINITY, 1000]
	])("%p → %p", (raw, expected) => {
		expect(normalizePageSize(raw)).toBe(expected);
	});
});

describe("encodePageToken / decodePageToken", () => {
	test("round-trips the position", () => {
		const token = encodePageToken(OP, QUERY, POSITION);
		expect(decodePageToken(token, OP, QUERY)).toEqual(POSITION);
	});

	test("the token is URL-safe base64 without padding", () => {
		for (let i = 0; i < 50; i++) {
			const token = encodePageToken(OP, { filter: "x".repeat(i) }, { offset: i, s: "?&/+=" });
			expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
		}
	});

	test("does not show the query in clear (only a fingerprint)", () => {
		const token = encodePageToken(OP, { filter: "secret-tag-name" }, 1);
		expect(Buffer.from(token, "base64url").toString()).not.toContain("secret-tag-name");
	});

	test.each([
		["a number", 100],
		["a string", "cursor"],
		["an array", [1, "a", true]],
		["nested objects", { a: { b: [1, 2, { c: "d" }] } }],
		["Unicode", { id: "日本語😀" }]
	])("positions of any JSON shape round-trip: %s", (_label, position) => {
		expect(decodePageToken(encodePageToken(OP, {}, position), OP, {})).toEqual(position);
	});

	test("an absent or empty token means the first page", () => {
		expect(decodePageToken("", OP, QUERY)).toBeNull();
		expect(decodePageToken(undefined, OP, QUERY)).toBeNull();
	});

	test("an undefined or null position cannot be encoded", () => {
		expect(thrownServiceError(() => encodePageToken(OP, QUERY, undefined))).toMatchObject({ type: "INTERNAL", message: "page token position is missing" });
		expect(thrownServiceError(() => encodePageToken(OP, QUERY, null)).type).toBe("INTERNAL");
	});

	describe("query fingerprint", () => {
		test("does not depend on key order, at any depth", () => {
			const token = encodePageToken(OP, { a: 1, b: { x: 1, y: [{ p: 1, q: 2 }] } }, 5);
			expect(decodePageToken(token, OP, { b: { y: [{ q: 2, p: 1 }], x: 1 }, a: 1 })).toBe(5);
		});

		test("an undefined parameter is the same as an absent one", () => {
			const token = encodePageToken(OP, { filter: "x", orderBy: undefined }, 5);
			expect(decodePageToken(token, OP, { filter: "x" })).toBe(5);
		});

		test.each([
			["a changed filter", { ...QUERY, filter: 'tag in ["home"]' }],
			["a changed orderBy", { ...QUERY, orderBy: "display_time asc" }],
			["a changed state", { ...QUERY, state: "ARCHIVED" }],
			["a changed showDeleted", { ...QUERY, showDeleted: true }],
			["a missing parameter", { filter: QUERY.filter, orderBy: QUERY.orderBy, state: QUERY.state }],
			["an extra parameter", { ...QUERY, parent: "memos/abc" }],
			["a value of another type", { ...QUERY, showDeleted: "false" }]
		])("%s is INVALID_ARGUMENT", (_label, other) => {
			const token = encodePageToken(OP, QUERY, POSITION);
			expectInvalidToken(() => decodePageToken(token, OP, other));
		});

		test("array order matters", () => {
			const token = encodePageToken(OP, { ids: ["a", "b"] }, 1);
			expectInvalidToken(() => decodePageToken(token, OP, { ids: ["b", "a"] }));
		});

		test("keys in any insertion order give one token", () => {
			const keys = ["e", "b", "d", "a", "c"];
			const build = (order: string[]) => Object.fromEntries(order.map(key => [key, { [`${key}2`]: 1, [`${key}1`]: 2 }]));
			const token = encodePageToken(OP, build(keys), 1);
			for (let shift = 1; shift < keys.length; shift++) {
				const rotated = [...keys.slice(shift), ...keys.slice(0, shift)];
				expect(encodePageToken(OP, build(rotated), 1)).toBe(token);
				expect(encodePageToken(OP, build([...rotated].reverse()), 1)).toBe(token);
			}
		});

		test("numbers, booleans and null values count, and an array is not an object with index keys", () => {
			const token = encodePageToken(OP, { pageLimit: 1, pinned: true, parent: null, ids: ["a"] }, 1);
			expect(decodePageToken(token, OP, { pageLimit: 1, pinned: true, parent: null, ids: ["a"] })).toBe(1);
			for (const other of [
				{ pageLimit: 2, pinned: true, parent: null, ids: ["a"] },
				{ pageLimit: 1, pinned: false, parent: null, ids: ["a"] },
				{ pageLimit: 1, pinned: true, parent: "memos/x", ids: ["a"] },
				{ pageLimit: 1, pinned: true, parent: null, ids: { 0: "a" } }
			]) {
				expectInvalidToken(() => decodePageToken(token, OP, other));
			}
		});
	});

	test("a token from another operation is INVALID_ARGUMENT", () => {
		const token = encodePageToken("ListAttachments", QUERY, POSITION);
		expectInvalidToken(() => decodePageToken(token, OP, QUERY));
	});

	test("a token whose JSON is null, an array or a string is INVALID_ARGUMENT", () => {
		for (const json of ["null", "[1]", '"x"', "7"]) expectInvalidToken(() => decodePageToken(Buffer.from(json).toString("base64url"), OP, QUERY));
	});

	test("a truncated token is INVALID_ARGUMENT", () => {
		const token = encodePageToken(OP, QUERY, POSITION);
		for (let cut = 1; cut < token.length; cut++) {
			expectInvalidToken(() => decodePageToken(token.slice(0, token.length - cut), OP, QUERY));
		}
	});

	test("a token with a character appended is INVALID_ARGUMENT", () => {
		// Over several lengths some tokens end on a 4-character group, where Buffer would
		// silently ignore one extra character.
		for (let i = 0; i < 8; i++) {
			const token = encodePageToken(OP, QUERY, "x".repeat(i));
			for (const extra of ["A", "AA", "_"]) {
				expectInvalidToken(() => decodePageToken(token + extra, OP, QUERY));
			}
		}
	});

	test("a token with a character changed is never accepted with another meaning", () => {
		const token = encodePageToken(OP, QUERY, POSITION);
		for (let i = 0; i < token.length; i++) {
			const replacement = token[i] === "A" ? "B" : "A";
			const tampered = token.slice(0, i) + replacement + token.slice(i + 1);
			try {
				const position = decodePageToken(tampered, OP, QUERY);
				// Changing a character inside the position's JSON may still decode: the
				// position is then whatever the client wrote, never a crash.
				expect(position).not.toBeUndefined();
			} catch (err) {
				expect(err).toBeInstanceOf(ServiceError);
				expect((err as ServiceError).type).toBe("INVALID_ARGUMENT");
			}
		}
	});

	test.each([
		["standard-alphabet characters", "ab+/"],
		["padding", `${b64url('{"o":"x"}')}=`],
		["whitespace", " abcd"],
		["percent-encoding", "abc%3D"],
		["a single character", "a"],
		["non-ASCII", "ñññ"],
		["non-canonical trailing bits", "YWJjZB"]
	])("%s: INVALID_ARGUMENT", (_label, token) => {
		expectInvalidToken(() => decodePageToken(token, OP, QUERY));
	});

	test.each([
		["not JSON", "hello world"],
		["JSON null", "null"],
		["a JSON number", "42"],
		["a JSON string", '"ListMemos"'],
		["a JSON array", '["ListMemos", "f", 1]'],
		["an empty object", "{}"],
		["a non-string operation", '{"o":1,"f":"x","p":1}'],
		["a non-string fingerprint", '{"o":"ListMemos","f":null,"p":1}'],
		["no position", '{"o":"ListMemos","f":"x"}'],
		["a forged fingerprint", '{"o":"ListMemos","f":"AAAAAAAAAAAAAAAAAAAAAA","p":1}'],
		["a prototype key", '{"__proto__":{"o":"ListMemos"},"f":"x","p":1}'],
		["deep nesting", `${"[".repeat(5000)}${"]".repeat(5000)}`]
	])("a forged payload (%s) is INVALID_ARGUMENT", (_label, json) => {
		expectInvalidToken(() => decodePageToken(b64url(json), OP, QUERY));
	});

	test("bytes that are not UTF-8 are INVALID_ARGUMENT", () => {
		expectInvalidToken(() => decodePageToken(Buffer.from([0xff, 0xfe, 0x7b]).toString("base64url"), OP, QUERY));
	});

	test("a forged payload whose fingerprint matches returns the forged position unchecked", () => {
		const genuine = JSON.parse(Buffer.from(encodePageToken(OP, QUERY, POSITION), "base64url").toString());
		const forged = b64url(JSON.stringify({ ...genuine, p: { t: "not a number" } }));
		expect(decodePageToken(forged, OP, QUERY)).toEqual({ t: "not a number" });
	});

	describe("with a position guard", () => {
		const isPosition = (p: unknown): p is { t: number; id: string } =>
			typeof p === "object" &&
			p !== null &&
			typeof (p as Record<string, unknown>).t === "number" &&
			typeof (p as Record<string, unknown>).id === "string";

		test("returns a position that passes", () => {
			const token = encodePageToken(OP, QUERY, POSITION);
			const position = decodePageToken(token, OP, QUERY, isPosition);
			expect(position?.t).toBe(POSITION.t);
		});

		test("a position of the wrong shape is INVALID_ARGUMENT", () => {
			const token = encodePageToken(OP, QUERY, { t: "1", id: 2 });
			expectInvalidToken(() => decodePageToken(token, OP, QUERY, isPosition));
		});

		test("an empty token is still the first page", () => {
			expect(decodePageToken("", OP, QUERY, isPosition)).toBeNull();
		});
	});

	test("any string as a token yields a position or INVALID_ARGUMENT, never another failure", () => {
		fc.assert(
			fc.property(fc.string({ unit: "binary", maxLength: 200 }), (token) => {
				try {
					decodePageToken(token, OP, QUERY);
				} catch (err) {
					return err instanceof ServiceError && err.type === "INVALID_ARGUMENT";
				}
				return true;
			}),
			{ numRuns: 2000 }
		);
	});

	test("any JSON as a payload yields a position or INVALID_ARGUMENT, never another failure", () => {
		fc.assert(
			fc.property(fc.json(), (json) => {
				try {
					decodePageToken(b64url(json), OP, QUERY);
				} catch (err) {
					return err instanceof ServiceError && err.type === "INVALID_ARGUMENT";
				}
				return true;
			}),
			{ numRuns: 2000 }
		);
	});
});

describe("the pageSize parameter (contract 1.7, 14)", () => {
	test("absent or empty is the default; numbers and numeric strings are coerced to 1-1000", () => {
		expect(pageSizeParam(undefined)).toBe(50);
		expect(pageSizeParam("")).toBe(50);
		expect(pageSizeParam("0")).toBe(50);
		expect(pageSizeParam(-3)).toBe(50);
		expect(pageSizeParam("1")).toBe(1);
		expect(pageSizeParam(1000)).toBe(1000);
		expect(pageSizeParam("1001")).toBe(1000);
	});

	test("anything else is INVALID_ARGUMENT naming pageSize", () => {
		for (const bad of ["ten", "1.5", true]) {
			const err = thrownServiceError(() => pageSizeParam(bad));
			expect(err.type).toBe("INVALID_ARGUMENT");
			expect(err.message).toContain("pageSize");
		}
	});
});
