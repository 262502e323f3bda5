import { isAscii } from "node:buffer";
import fc from "fast-check";
import {
	parseBool,
	decodeBase64Text,
	parseBytes,
	parseEnum,
	parseInt32,
	parseInt64,
	parseTimestamp,
	toBytes,
	toInt64,
	toTimestamp
} from "../../shared/proto-json.js";
import { expectInvalidArgument } from "../support/service-errors.js";

describe("toTimestamp", () => {
	test.each([
		[0, "1970-01-01T00:00:00.000Z"],
		[Date.UTC(2025, 2, 1, 9, 30, 0, 123), "2025-03-01T09:30:00.123Z"],
		[Date.UTC(2025, 2, 1, 9, 30, 0), "2025-03-01T09:30:00.000Z"],
		[Date.UTC(2025, 2, 1, 9, 30, 0, 5), "2025-03-01T09:30:00.005Z"],
		[-1, "1969-12-31T23:59:59.999Z"]
	])("%p → %s", (ms, expected) => {
		expect(toTimestamp(ms)).toBe(expected);
	});

	test("accepts a Date", () => {
		expect(toTimestamp(new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 999)))).toBe("2024-02-29T23:59:59.999Z");
	});

	test("exactly what toISOString gives, over the Timestamp range and past its ends", () => {
		const edges = [-62135596800000, -62135596800001, 253402300799999, 253402300800000, -1, 0, 951782400000, 4107542400000, -8640000000000000, 8640000000000000];
		for (const ms of edges) expect(toTimestamp(ms)).toBe(new Date(ms).toISOString());
		fc.assert(
			fc.property(fc.integer({ min: -62135596800000 - 2 * 86_400_000, max: 253402300799999 + 2 * 86_400_000 }), (ms) => {
				expect(toTimestamp(ms)).toBe(new Date(ms).toISOString());
				expect(toTimestamp(new Date(ms))).toBe(new Date(ms).toISOString());
			}),
			{ numRuns: 20_000 }
		);
		fc.assert(
			fc.property(fc.double({ min: -1e14, max: 1e14, noNaN: true }), (ms) => {
				expect(toTimestamp(ms)).toBe(new Date(ms).toISOString());
			})
		);
	});

	test("an invalid time throws as toISOString does", () => {
		expect(() => toTimestamp(Number.NaN)).toThrow(RangeError);
		expect(() => toTimestamp(8640000000000001)).toThrow(RangeError);
	});

	test("always UTC with exactly three fractional digits", () => {
		fc.assert(
			fc.property(fc.integer({ min: -62135596800000, max: 253402300799999 }), (ms) => {
				const text = toTimestamp(ms);
				return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(text) && parseTimestamp(text, "t") === ms;
			})
		);
	});
});

describe("parseTimestamp", () => {
	const base = Date.UTC(2025, 2, 1, 9, 30, 0);

	test.each([
		["2025-03-01T09:30:00Z", base],
		["2025-03-01T09:30:00.123Z", base + 123],
		["2025-03-01T09:30:00.1Z", base + 100],
		["2025-03-01T09:30:00.12Z", base + 120],
		["2025-03-01T09:30:00.000001Z", base],
		["2025-03-01T09:30:00.123456789Z", base + 123],
		["2025-03-01T09:30:00.999999999Z", base + 999],
		["2025-03-01T11:30:00+02:00", base],
		["2025-03-01T11:30:00.250+02:00", base + 250],
		["2025-03-01T04:00:00-05:30", base],
		["2025-03-01T09:30:00+00:00", base],
		["2025-03-01T09:30:00-00:00", base],
		["2025-03-02T00:30:00+15:00", base],
		["2025-03-01t09:30:00z", base],
		["2025-03-01T00:30:00-23:59", Date.UTC(2025, 2, 2, 0, 29)]
	])("%s", (text, expected) => {
		expect(parseTimestamp(text, "displayTime")).toBe(expected);
	});

	test("an offset may carry the time across a day, month and year boundary", () => {
		expect(parseTimestamp("2025-01-01T01:00:00+02:00", "t")).toBe(Date.UTC(2024, 11, 31, 23, 0, 0));
	});

	test.each([
		["2024-02-29T00:00:00Z", Date.UTC(2024, 1, 29)],
		["2000-02-29T00:00:00Z", Date.UTC(2000, 1, 29)],
		["2025-04-30T23:59:59Z", Date.UTC(2025, 3, 30, 23, 59, 59)],
		["2025-12-31T23:59:59.999Z", Date.UTC(2025, 11, 31, 23, 59, 59, 999)]
	])("calendar edge %s", (text, expected) => {
		expect(parseTimestamp(text, "t")).toBe(expected);
	});

	test("the years 1-99 are not read as 1901-1999", () => {
		expect(toTimestamp(parseTimestamp("0099-06-15T12:00:00Z", "t"))).toBe("0099-06-15T12:00:00.000Z");
		expect(toTimestamp(parseTimestamp("0001-01-01T00:00:00Z", "t"))).toBe("0001-01-01T00:00:00.000Z");
	});

	test("the ends of the Timestamp range", () => {
		expect(parseTimestamp("0001-01-01T00:00:00Z", "t")).toBe(-62135596800000);
		expect(parseTimestamp("9999-12-31T23:59:59.999999999Z", "t")).toBe(253402300799999);
	});

	test.each([
		"yesterday",
		"",
		"now",
		"2025-13-01T00:00:00Z",
		"2025-00-01T00:00:00Z",
		"2025-01-00T00:00:00Z",
		"2025-01-32T00:00:00Z",
		"2025-04-31T00:00:00Z",
		"2025-02-29T00:00:00Z",
		"1900-02-29T00:00:00Z",
		"2025-03-01T24:00:00Z",
		"2025-03-01T09:60:00Z",
		"2025-03-01T09:30:60Z",
		"2025-03-01T09:30:00+24:00",
		"2025-03-01T09:30:00+02:60",
		"2025-03-01T09:30:00",
		"2025-03-01",
		"2025-03-01T09:30Z",
		"2025-03-01 09:30:00Z",
		"2025-03-01T09:30:00.Z",
		"2025-03-01T09:30:00.1234567890Z",
		"2025-03-01T09:30:00+0200",
		"2025-03-01T09:30:00+02",
		"2025-3-1T09:30:00Z",
		"+02025-03-01T09:30:00Z",
		"0000-12-31T23:59:59Z",
		"0001-01-01T00:00:00+00:01",
		"10000-01-01T00:00:00Z",
		" 2025-03-01T09:30:00Z",
		"2025-03-01T09:30:00Z ",
		"2025-03-01T09:30:00Z\n",
		"２０２５-03-01T09:30:00Z",
		"Sat, 01 Mar 2025 09:30:00 GMT",
		"1740821400"
	])("rejects %j", (text) => {
		expectInvalidArgument(() => parseTimestamp(text, "displayTime"), "displayTime");
	});

	test.each([null, undefined, 0, 1740821400000, true, {}, ["2025-03-01T09:30:00Z"], new Date(0)])(
		"rejects the non-string %p",
		(value) => {
			expectInvalidArgument(() => parseTimestamp(value, "createTime"), "createTime");
		}
	);
});

describe("toInt64", () => {
	test.each([
		[0, "0"],
		[-0, "0"],
		[1048576, "1048576"],
		[-42, "-42"],
		[1e21, "1000000000000000000000"],
		[Number.MAX_SAFE_INTEGER, "9007199254740991"],
		[2n ** 63n - 1n, "9223372036854775807"],
		[-(2n ** 63n), "-9223372036854775808"]
	])("%p → %s", (n, expected) => {
		expect(toInt64(n)).toBe(expected);
	});
});

describe("parseInt64", () => {
	test.each([
		["1048576", 1048576],
		[1048576, 1048576],
		["0", 0],
		["-5", -5],
		[-5, -5],
		["007", 7],
		["9007199254740991", Number.MAX_SAFE_INTEGER],
		["-9007199254740991", Number.MIN_SAFE_INTEGER]
	])("%p → %p", (value, expected) => {
		expect(parseInt64(value, "size")).toBe(expected);
	});

	test.each([
		"9007199254740992",
		"9223372036854775807",
		2 ** 53,
		"1.5",
		1.5,
		"",
		" 5",
		"5 ",
		"+5",
		"0x10",
		"1e3",
		"--1",
		"١٢٣",
		Number.NaN,
		Number.POSITIVE_INFINITY,
		null,
		undefined,
		true,
		{},
		[5]
	])("rejects %p", (value) => {
		expectInvalidArgument(() => parseInt64(value, "size"), "size");
	});
});

describe("parseInt32", () => {
	test.each([
		["2147483647", 2147483647],
		[-2147483648, -2147483648],
		["50", 50],
		[0, 0]
	])("%p → %p", (value, expected) => {
		expect(parseInt32(value, "pageSize")).toBe(expected);
	});

	test.each(["2147483648", 2147483648, "-2147483649", "abc", "12abc", 1.5, null])("rejects %p", (value) => {
		expectInvalidArgument(() => parseInt32(value, "pageSize"), "pageSize");
	});
});

describe("parseBool", () => {
	test.each([
		[true, true],
		[false, false],
		["true", true],
		["TRUE", true],
		["True", true],
		["tRuE", true],
		["false", false],
		["FALSE", false],
		["False", false],
		["1", true],
		["0", false]
	])("%p → %p", (value, expected) => {
		expect(parseBool(value, "showDeleted")).toBe(expected);
	});

	test.each(["yes", "no", "", " true", "true ", "t", "2", "01", 1, 0, null, undefined, {}])("rejects %p", (value) => {
		expectInvalidArgument(() => parseBool(value, "showDeleted"), "showDeleted");
	});
});

describe("parseEnum", () => {
	const VISIBILITY = ["VISIBILITY_UNSPECIFIED", "PRIVATE", "PROTECTED", "PUBLIC"] as const;

	test.each([
		["PUBLIC", "PUBLIC"],
		["VISIBILITY_UNSPECIFIED", "VISIBILITY_UNSPECIFIED"],
		[3, "PUBLIC"],
		[0, "VISIBILITY_UNSPECIFIED"],
		["3", "PUBLIC"],
		["1", "PRIVATE"]
	])("%p → %s", (value, expected) => {
		expect(parseEnum(value, VISIBILITY, "visibility")).toBe(expected);
	});

	test.each(["public", "Public", "", "PUBLIC ", 4, "4", -1, "-1", 1.5, "1.5", " 1", null, undefined, true])(
		"rejects %p",
		(value) => {
			expectInvalidArgument(() => parseEnum(value, VISIBILITY, "visibility"), "visibility");
		}
	);
});

describe("parseBytes / toBytes", () => {
	const HELLO = Buffer.from("hello");
	// 0xfb 0xff encodes to characters that differ between the two alphabets.
	const SPECIAL = Buffer.from([0xfb, 0xff]);

	test.each([
		["aGVsbG8=", HELLO],
		["aGVsbG8", HELLO],
		["+/8=", SPECIAL],
		["+/8", SPECIAL],
		["-_8=", SPECIAL],
		["-_8", SPECIAL],
		["", Buffer.alloc(0)],
		["YQ==", Buffer.from("a")],
		["YQ", Buffer.from("a")],
		["YWI=", Buffer.from("ab")],
		["YWJj", Buffer.from("abc")]
	])("%j", (text, expected) => {
		expect(parseBytes(text, "content").equals(expected)).toBe(true);
	});

	test.each([
		"aGVsbG8!",
		"aGVs bG8=",
		"aGVsbG8=\n",
		" aGVsbG8=",
		"a",
		"aGVsb",
		"YQ=",
		"YQ===",
		"YWI==",
		"=",
		"==",
		"====",
		"YQ==YQ==",
		"Y=Q=",
		"+_8=",
		"-/8=",
		"aGVsbG8=.",
		"日本",
		"aGVsbG8%3D"
	])("rejects %j", (text) => {
		expectInvalidArgument(() => parseBytes(text, "content"), "content");
	});

	test("accepts exactly the texts of the base64 grammar, and decodes them as Buffer.from does", () => {
		// The grammar spelled as patterns: parseBytes checks it through the decoder instead.
		const grammatical = (text: string) => {
			const data = text.replace(/={1,2}$/, "");
			const padding = text.length - data.length;
			return (/^[A-Za-z0-9+/]*$/.test(data) || /^[A-Za-z0-9_-]*$/.test(data)) && data.length % 4 !== 1 && (padding === 0 || (data.length + padding) % 4 === 0);
		};
		const character = fc.constantFrom(..."AQYZaqz09+/-_= \n!.\u00e9\u65e5");
		fc.assert(
			fc.property(fc.oneof(fc.string({ unit: character, maxLength: 24 }), fc.uint8Array({ maxLength: 24 }).map(bytes => Buffer.from(bytes).toString("base64"))), text => {
				// ASCII text given as bytes (a request body's) is decoded by the same rules.
				const ascii = isAscii(Buffer.from(text));
				const asBytes = ascii ? decodeBase64Text(Buffer.from(text, "latin1")) : undefined;
				if (grammatical(text)) {
					expect(parseBytes(text, "content").equals(Buffer.from(text, "base64"))).toBe(true);
					if (ascii) expect(asBytes?.equals(Buffer.from(text, "base64"))).toBe(true);
				} else {
					expectInvalidArgument(() => parseBytes(text, "content"), "content");
					expect(asBytes).toBeUndefined();
				}
			}),
			{ numRuns: 2000 }
		);
	});

	test("a text of many decoder slices decodes whole, and one character out of place anywhere in it is refused", () => {
		const bytes = Buffer.from(Array.from({ length: 300_001 }, (_, i) => (i * 131) % 256));
		const text = bytes.toString("base64");
		expect(parseBytes(text, "content").equals(bytes)).toBe(true);
		expect(parseBytes(bytes.toString("base64url"), "content").equals(bytes)).toBe(true);
		expect(decodeBase64Text(Buffer.from(text))?.equals(bytes)).toBe(true);
		for (const at of [0, 1, 65_535, 65_536, 65_537, 131_071, 200_000, text.length - 5]) {
			for (const odd of [" ", "!", "=", "-"]) {
				const spoilt = `${text.slice(0, at)}${odd}${text.slice(at + 1)}`;
				expectInvalidArgument(() => parseBytes(spoilt, "content"), "content");
				expect(decodeBase64Text(Buffer.from(spoilt))).toBeUndefined();
			}
		}
	});

	test("bytes given as bytes are decoded into the buffer allocate gives, whatever it held before", () => {
		const bytes = Buffer.from(Array.from({ length: 200_003 }, (_, i) => (i * 7) % 256));
		const into = Buffer.alloc(bytes.length + 10, 0xee);
		const decoded = decodeBase64Text(Buffer.from(bytes.toString("base64url")), length => into.subarray(0, length));
		expect(decoded?.buffer).toBe(into.buffer);
		expect(decoded?.equals(bytes)).toBe(true);
	});

	test.each([null, undefined, 0, [1, 2], {}, Buffer.from("x")])("rejects the non-string %p", (value) => {
		expectInvalidArgument(() => parseBytes(value, "content"), "content");
	});

	test("toBytes emits standard base64 with padding", () => {
		expect(toBytes(HELLO)).toBe("aGVsbG8=");
		expect(toBytes(SPECIAL)).toBe("+/8=");
		expect(toBytes(new Uint8Array())).toBe("");
	});

	test("toBytes honours a view's offset and length", () => {
		const whole = new Uint8Array([1, 2, 3, 0x68, 0x69, 4]);
		expect(toBytes(whole.subarray(3, 5))).toBe("aGk=");
	});

	test("any bytes survive both alphabets, with or without padding", () => {
		fc.assert(
			fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
				const standard = toBytes(bytes);
				const urlSafe = Buffer.from(bytes).toString("base64url");
				return [standard, standard.replace(/=+$/, ""), urlSafe, urlSafe + "=".repeat((4 - (urlSafe.length % 4)) % 4)].every(
					(text) => parseBytes(text, "b").equals(Buffer.from(bytes))
				);
			})
		);
	});
});
