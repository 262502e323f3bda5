import {
	ID_PATTERN,
	generateId,
	generateShareToken,
	generateUuid,
	pathId,
	resolveId,
	uuidToBase57,
	validateClientId
} from "../../shared/ids.js";
import { expectInvalidArgument, thrownServiceError } from "../support/service-errors.js";

const ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const BASE57_ID = /^[23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz]{22}$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Reference encoding, written differently from the module: greedy, most significant power first. */
function referenceBase57(uuid: string): string {
	let value = BigInt(`0x${uuid.replaceAll("-", "")}`);
	let out = "";
	for (let power = 21n; power >= 0n; power--) {
		const weight = 57n ** power;
		out += ALPHABET[Number(value / weight)];
		value %= weight;
	}
	return out;
}

/** Inverse of the encoding, to read back what a generated id carries. */
function decodeBase57(id: string): bigint {
	let value = 0n;
	for (const char of id) value = value * 57n + BigInt(ALPHABET.indexOf(char));
	return value;
}

describe("ID_PATTERN", () => {
	test.each(["a", "Z", "7", "ab", "memo-1", "a-b-c", "A1b2C3", "a".repeat(36), `a${"-".repeat(34)}b`])(
		"accepts %j",
		(id) => {
			expect(ID_PATTERN.test(id)).toBe(true);
		}
	);

	test.each([
		"",
		"-",
		"-a",
		"a-",
		"-ab-",
		"a".repeat(37),
		"a_b",
		"a b",
		"a.b",
		"a/b",
		"mémo",
		"日本",
		"１２３",
		"abc\n",
		"\nabc",
		" abc"
	])("rejects %j", (id) => {
		expect(ID_PATTERN.test(id)).toBe(false);
	});

	test("is stateless between calls (no global flag)", () => {
		expect(ID_PATTERN.test("abc")).toBe(true);
		expect(ID_PATTERN.test("abc")).toBe(true);
	});
});

describe("validateClientId", () => {
	test("returns a valid id unchanged", () => {
		expect(validateClientId("memo-1", "memoId")).toBe("memo-1");
	});

	test("accepts exactly 36 characters", () => {
		const id = `A${"b".repeat(34)}9`;
		expect(id).toHaveLength(36);
		expect(validateClientId(id, "memoId")).toBe(id);
	});

	test("rejects 37 characters", () => {
		const err = thrownServiceError(() => validateClientId("a".repeat(37), "memoId"));
		expect(err.type).toBe("INVALID_ARGUMENT");
		expect(err.code).toBe(400);
	});

	test.each(["  abc  ", "\tabc\n", "\u00a0abc\u00a0", "\u3000abc"])("trims surrounding whitespace of %j", (raw) => {
		expect(validateClientId(raw, "memoId")).toBe("abc");
	});

	test("trims before checking the length", () => {
		expect(validateClientId(`  ${"a".repeat(36)}  `, "memoId")).toBe("a".repeat(36));
	});

	test.each(["", "   ", "\t\n"])("returns empty for %j, meaning generate", (raw) => {
		expect(validateClientId(raw, "memoId")).toBe("");
	});

	test.each(["-abc", "abc-", "a b", "mémo", "emoji😀", "a_b", "a".repeat(37)])(
		"rejects %j naming the field",
		(raw) => {
			expectInvalidArgument(() => validateClientId(raw, "attachmentId"), "attachmentId");
		}
	);

	test("ids are case-sensitive and kept as given", () => {
		expect(validateClientId("AbC", "memoId")).toBe("AbC");
	});
});

describe("uuidToBase57", () => {
	test.each([
		"00000000-0000-0000-0000-000000000000",
		"ffffffff-ffff-ffff-ffff-ffffffffffff",
		"3f2b8c1e-5a7d-4e2f-9b1c-0d6e7f8a9b0c",
		"00000000-0000-0000-0000-000000000039",
		"b9efce8a-592d-47d8-8e5b-7ad8660dc7d1"
	])("matches an independent BigInt computation for %s", (uuid) => {
		expect(uuidToBase57(uuid)).toBe(referenceBase57(uuid));
	});

	test.each([
		["00000000-0000-0000-0000-000000000000", "2222222222222222222222"],
		["00000000-0000-0000-0000-000000000039", "2222222222222222222232"],
		["0026636a-e9b3-4a88-9c66-bf49d8cad81f", "23XgxsETJcF7vB5N3FZRcB"],
		["f9ee01c3-2015-4716-930e-4d5449810833", "nUfojcH2M5j9j3Tk5A8mf7"]
	])("encodes %s as upstream does: %s", (uuid, expected) => {
		expect(uuidToBase57(uuid)).toBe(expected);
	});

	test("the largest UUID still fits in 22 characters", () => {
		const encoded = uuidToBase57("ffffffff-ffff-ffff-ffff-ffffffffffff");
		expect(encoded).toHaveLength(22);
		expect(decodeBase57(encoded)).toBe(2n ** 128n - 1n);
	});

	test("accepts upper-case hex", () => {
		expect(uuidToBase57("3F2B8C1E-5A7D-4E2F-9B1C-0D6E7F8A9B0C")).toBe(
			uuidToBase57("3f2b8c1e-5a7d-4e2f-9b1c-0d6e7f8a9b0c")
		);
	});
});

describe("generateId", () => {
	test("10,000 ids are 22 base57 characters, match ID_PATTERN and are distinct", () => {
		const ids = new Set<string>();
		for (let i = 0; i < 10_000; i++) {
			const id = generateId();
			expect(id).toHaveLength(22);
			expect(id).toMatch(BASE57_ID);
			expect(ID_PATTERN.test(id)).toBe(true);
			ids.add(id);
		}
		expect(ids.size).toBe(10_000);
	});

	test("carries a UUID v4 (version and variant bits)", () => {
		for (let i = 0; i < 100; i++) {
			const value = decodeBase57(generateId());
			expect((value >> 76n) & 0xfn).toBe(4n);
			expect((value >> 62n) & 0x3n).toBe(2n);
		}
	});
});

describe("generateUuid", () => {
	test("is a canonical lowercase UUID v4 that also matches ID_PATTERN", () => {
		const seen = new Set<string>();
		for (let i = 0; i < 1000; i++) {
			const uuid = generateUuid();
			expect(uuid).toMatch(UUID_V4);
			expect(ID_PATTERN.test(uuid)).toBe(true);
			seen.add(uuid);
		}
		expect(seen.size).toBe(1000);
	});
});

describe("generateShareToken", () => {
	test("is 22 base57 characters, distinct and a valid id", () => {
		const seen = new Set<string>();
		for (let i = 0; i < 1000; i++) {
			const token = generateShareToken();
			expect(token).toMatch(BASE57_ID);
			expect(ID_PATTERN.test(token)).toBe(true);
			seen.add(token);
		}
		expect(seen.size).toBe(1000);
	});

	test("carries 122 random bits: only the six UUID v4 version and variant bits are fixed", () => {
		let varying = 0n;
		const first = decodeBase57(generateShareToken());
		for (let i = 0; i < 500; i++) {
			const value = decodeBase57(generateShareToken());
			expect((value >> 76n) & 0xfn).toBe(4n);
			expect((value >> 62n) & 0x3n).toBe(2n);
			varying |= value ^ first;
		}
		const fixedBits = (0xfn << 76n) | (0x3n << 62n);
		expect(varying).toBe((2n ** 128n - 1n) ^ fixedBits);
	});

	test("uses the whole width of the encoding, not a constant first character", () => {
		const firsts = new Set<string>();
		for (let i = 0; i < 500; i++) firsts.add(generateShareToken()[0]);
		expect(firsts.size).toBeGreaterThan(10);
	});
});

describe("resolveId", () => {
	test("returns the client's id, trimmed", () => {
		expect(resolveId("  my-memo ", "memoId", "memo")).toBe("my-memo");
		expect(resolveId("team-a", "spaceId", "space")).toBe("team-a");
	});

	test.each(["memo", "attachment", "identity-provider"] as const)("generates a base57 id for %s", (kind) => {
		expect(resolveId("", "id", kind)).toMatch(BASE57_ID);
		expect(resolveId("   ", "id", kind)).toMatch(BASE57_ID);
		expect(resolveId(undefined, "id", kind)).toMatch(BASE57_ID);
	});

	test("generates a UUID v4 for a space", () => {
		expect(resolveId("", "spaceId", "space")).toMatch(UUID_V4);
		expect(resolveId(undefined, "spaceId", "space")).toMatch(UUID_V4);
	});

	test("rejects an invalid id naming the field", () => {
		expectInvalidArgument(() => resolveId("bad id", "identityProviderId", "identity-provider"), "identityProviderId");
	});
});

test("a path id is taken as given; anything but a string is the empty id, which names nothing", () => {
	expect(pathId("any thing")).toBe("any thing");
	expect(pathId(7)).toBe("");
	expect(pathId(undefined)).toBe("");
});
