import type { Caller } from "../../shared/caller.js";
import { candidateBranches } from "../../services/memos/list-query.js";
import { parseListMemosQuery } from "../../services/memos/list-params.js";
import { assertCanDelete, assertCanUpdate, assertReadable, canRead, mayRead, readableBy } from "../../services/memos/memo-access.js";
import { parseCreateMemo } from "../../services/memos/memo-create.js";
import type { MemoDoc } from "../../services/memos/memo-doc.js";
import { toMemoJson } from "../../services/memos/memo-json.js";
import { NO_SPACES } from "../../services/memos/memo-spaces.js";
import { memoDoc } from "../support/memo-doc.js";
import { codeOf, expectServiceError } from "../support/service-errors.js";

const alice: Caller = { id: "u-alice", username: "alice", role: "USER" };
const bob: Caller = { id: "u-bob", username: "bob", role: "USER" };
const admin: Caller = { id: "u-admin", username: "root", role: "ADMIN" };

const memo = (overrides: Partial<MemoDoc> = {}): MemoDoc =>
	memoDoc({ creatorId: alice.id, content: "hello", snippet: "hello", createTime: Date.UTC(2025, 2, 1, 9, 30), updateTime: Date.UTC(2025, 2, 1, 9, 31), ...overrides });

describe("read rule (contract 1.10, 3.2)", () => {
	test.each([
		["PRIVATE", null, "UNAUTHENTICATED"],
		["PRIVATE", bob, "PERMISSION_DENIED"],
		["PRIVATE", admin, "PERMISSION_DENIED"],
		["PRIVATE", alice, "OK"],
		["PROTECTED", null, "UNAUTHENTICATED"],
		["PROTECTED", bob, "OK"],
		["PUBLIC", null, "OK"],
		["PUBLIC", bob, "OK"],
		["SPACE", bob, "PERMISSION_DENIED"],
		["SPACE", null, "UNAUTHENTICATED"],
		["SPACE", alice, "OK"]
	] as const)("a NORMAL %s memo read by %p", (visibility, caller, expected) => {
		expect(codeOf(() => assertReadable(memo({ visibility }), "m1", caller))).toBe(expected);
	});

	test("missing and deleted memos are NOT_FOUND, even for their creator", () => {
		expect(codeOf(() => assertReadable(null, "m1", alice))).toBe("NOT_FOUND");
		expect(codeOf(() => assertReadable(memo({ visibility: "PUBLIC", deleteTime: 1 }), "m1", alice))).toBe("NOT_FOUND");
	});

	test("an archived memo is NOT_FOUND for everyone but its creator, admins and anonymous included", () => {
		const archived = memo({ visibility: "PUBLIC", state: "ARCHIVED" });
		expect(codeOf(() => assertReadable(archived, "m1", bob))).toBe("NOT_FOUND");
		expect(codeOf(() => assertReadable(archived, "m1", admin))).toBe("NOT_FOUND");
		expect(codeOf(() => assertReadable(archived, "m1", null))).toBe("NOT_FOUND");
		expect(codeOf(() => assertReadable(archived, "m1", alice))).toBe("OK");
	});

	test("canRead is the visibility table alone", () => {
		expect(canRead(memo({ visibility: "PROTECTED" }), null)).toBe(false);
		expect(canRead(memo({ visibility: "PUBLIC" }), null)).toBe(true);
	});

	test("a SPACE memo: members of its space read it; members of another space, instance admins as such and anonymous callers do not", () => {
		const spaceMemo = memo({ visibility: "SPACE", spaceId: "s1" });
		const inS1: ReadonlyMap<string, "ADMIN" | "MEMBER"> = new Map([["s1", "MEMBER"]]);
		expect(codeOf(() => assertReadable(spaceMemo, "m1", bob, inS1))).toBe("OK");
		expect(codeOf(() => assertReadable(spaceMemo, "m1", bob, new Map([["s2", "ADMIN"]])))).toBe("PERMISSION_DENIED");
		expect(codeOf(() => assertReadable(spaceMemo, "m1", admin))).toBe("PERMISSION_DENIED");
		// Memberships count for a signed-in caller only.
		expect(codeOf(() => assertReadable(spaceMemo, "m1", null, inS1))).toBe("UNAUTHENTICATED");
		expect(canRead(memo({ visibility: "SPACE", spaceId: null }), bob, inS1)).toBe(false);
		expect(canRead(memo({ visibility: "PRIVATE" }), bob)).toBe(false);
	});

	test("mayRead is assertReadable as a yes or no", () => {
		const inS1: ReadonlyMap<string, "ADMIN" | "MEMBER"> = new Map([["s1", "MEMBER"]]);
		expect(mayRead(null, alice)).toBe(false);
		expect(mayRead(undefined, alice)).toBe(false);
		expect(mayRead(memo({ visibility: "PUBLIC", deleteTime: 1 }), alice)).toBe(false);
		expect(mayRead(memo({ visibility: "PUBLIC", state: "ARCHIVED" }), bob)).toBe(false);
		expect(mayRead(memo({ visibility: "PUBLIC", state: "ARCHIVED" }), null)).toBe(false);
		expect(mayRead(memo({ visibility: "PRIVATE", state: "ARCHIVED" }), alice)).toBe(true);
		expect(mayRead(memo({ visibility: "PUBLIC" }), null)).toBe(true);
		expect(mayRead(memo({ visibility: "PRIVATE" }), bob)).toBe(false);
		expect(mayRead(memo({ visibility: "SPACE", spaceId: "s1" }), bob, inS1)).toBe(true);
		expect(mayRead(memo({ visibility: "SPACE", spaceId: "s1" }), bob)).toBe(false);
	});

	test("readableBy: the read rule for a signed-in reader known by id and membership (live streams)", () => {
		expect(readableBy(memo({ visibility: "PUBLIC", deleteTime: 1 }), alice.id, false)).toBe(false);
		expect(readableBy(memo({ visibility: "PUBLIC", state: "ARCHIVED" }), bob.id, false)).toBe(false);
		expect(readableBy(memo({ visibility: "PRIVATE", state: "ARCHIVED" }), alice.id, false)).toBe(true);
		expect(readableBy(memo({ visibility: "PROTECTED" }), bob.id, false)).toBe(true);
		expect(readableBy(memo({ visibility: "PRIVATE" }), bob.id, false)).toBe(false);
		expect(readableBy(memo({ visibility: "SPACE", spaceId: "s1" }), bob.id, true)).toBe(true);
		expect(readableBy(memo({ visibility: "SPACE", spaceId: "s1" }), bob.id, false)).toBe(false);
	});

	test("each refusal names the memo", () => {
		expectServiceError(() => assertReadable(null, "m1", alice), "NOT_FOUND", 'memo "memos/m1" not found');
		expectServiceError(() => assertReadable(memo(), "m1", bob), "PERMISSION_DENIED", 'no read access to memo "memos/m1"');
		expectServiceError(() => assertCanUpdate(memo({ visibility: "PUBLIC" }), "m1", bob, NO_SPACES), "PERMISSION_DENIED", 'only the creator or an admin may change memo "memos/m1"');
		expectServiceError(() => assertCanDelete(memo({ visibility: "PUBLIC" }), "m1", bob, false), "PERMISSION_DENIED", 'may delete memo "memos/m1"');
	});
});

describe("write rules (contract 3.3)", () => {
	test("update: creator or admin, existence first", () => {
		expect(codeOf(() => assertCanUpdate(memo(), "m1", alice, NO_SPACES))).toBe("OK");
		expect(codeOf(() => assertCanUpdate(memo({ visibility: "PROTECTED" }), "m1", admin, NO_SPACES))).toBe("OK");
		expect(codeOf(() => assertCanUpdate(memo({ visibility: "PUBLIC" }), "m1", bob, NO_SPACES))).toBe("PERMISSION_DENIED");
		expect(codeOf(() => assertCanUpdate(memo({ deleteTime: 5 }), "m1", alice, NO_SPACES))).toBe("NOT_FOUND");
		expect(codeOf(() => assertCanUpdate(null, "m1", admin, NO_SPACES))).toBe("NOT_FOUND");
	});

	test("an admin's write answers as a read would on a memo the admin cannot read (3.1)", () => {
		expect(codeOf(() => assertCanUpdate(memo({ visibility: "PRIVATE" }), "m1", admin, NO_SPACES))).toBe("PERMISSION_DENIED");
		expect(codeOf(() => assertCanUpdate(memo({ visibility: "PUBLIC", state: "ARCHIVED" }), "m1", admin, NO_SPACES))).toBe("NOT_FOUND");
		const spaceMemo = memo({ visibility: "SPACE", spaceId: "s1" });
		expect(codeOf(() => assertCanUpdate(spaceMemo, "m1", admin, NO_SPACES))).toBe("PERMISSION_DENIED");
		expect(codeOf(() => assertCanUpdate(spaceMemo, "m1", admin, new Map([["s1", "MEMBER"]])))).toBe("OK");
		expect(codeOf(() => assertCanUpdate(memo({ visibility: "PRIVATE", state: "ARCHIVED" }), "m1", alice, NO_SPACES))).toBe("OK");
		expect(codeOf(() => assertCanUpdate(memo({ visibility: "PRIVATE", state: "ARCHIVED" }), "m1", bob, NO_SPACES))).toBe("PERMISSION_DENIED");
	});

	test("delete: a deleted memo can only be purged", () => {
		const deleted = memo({ deleteTime: 5 });
		expect(codeOf(() => assertCanDelete(deleted, "m1", alice, false))).toBe("NOT_FOUND");
		expect(codeOf(() => assertCanDelete(deleted, "m1", alice, true))).toBe("OK");
		expect(codeOf(() => assertCanDelete(deleted, "m1", bob, true))).toBe("PERMISSION_DENIED");
		expect(codeOf(() => assertCanDelete(memo(), "m1", admin, false))).toBe("OK");
		expect(codeOf(() => assertCanDelete(null, "m1", alice, true))).toBe("NOT_FOUND");
	});
});

describe("Memo JSON (contract 4.1, 1.3)", () => {
	test("defaults are emitted, unset messages omitted, space null", () => {
		const json = toMemoJson(memo(), { creator: "users/alice" });
		expect(json).toEqual({
			name: "memos/m1",
			state: "NORMAL",
			creator: "users/alice",
			createTime: "2025-03-01T09:30:00.000Z",
			updateTime: "2025-03-01T09:31:00.000Z",
			content: "hello",
			visibility: "PRIVATE",
			tags: [],
			pinned: false,
			attachments: [],
			relations: [],
			reactions: [],
			property: { hasLink: false, hasTaskList: false, hasCode: false, hasIncompleteTasks: false, title: "" },
			snippet: "hello",
			space: null
		});
		expect(Object.keys(json)).not.toContain("location");
		expect(Object.keys(json)).not.toContain("parent");
		expect(Object.keys(json)).not.toContain("deleteTime");
	});

	test("location, parent, space and deleteTime when set (deleteTime only when asked for)", () => {
		const doc = memo({
			location: { placeholder: "Paris", latitude: 48.85, longitude: 2.35 },
			parentId: "p1",
			spaceId: "3f2b8c1e-5a7d-4e2f-9b1c-0d6e7f8a9b0c",
			deleteTime: Date.UTC(2025, 3, 1)
		});
		expect(toMemoJson(doc, { creator: "users/alice" })).toMatchObject({
			parent: "memos/p1",
			location: { placeholder: "Paris", latitude: 48.85, longitude: 2.35 },
			space: "spaces/3f2b8c1e-5a7d-4e2f-9b1c-0d6e7f8a9b0c"
		});
		expect(toMemoJson(doc, { creator: "users/alice" })).not.toHaveProperty("deleteTime");
		expect(toMemoJson(doc, { creator: "users/alice", withDeleteTime: true }).deleteTime).toBe("2025-04-01T00:00:00.000Z");
	});
});

describe("CreateMemo input (contract 7.3, 1.5)", () => {
	const parse = (params: Record<string, unknown>, limit = 8192) => parseCreateMemo(params, limit);

	test("defaults: generated id, empty content, PRIVATE, unpinned, no location or space", () => {
		const input = parse({});
		expect(input.id).toMatch(/^[2-9A-HJ-NP-Za-km-z]{22}$/);
		expect(input).toMatchObject({ content: "", visibility: "PRIVATE", pinned: false, location: null, spaceId: null });
		expect(input.createTime).toBeUndefined();
	});

	test("fields by JSON or snake_case name, enums by name or number", () => {
		const input = parse({
			memoId: "  my-memo ",
			memo: { content: "x", visibility: 3, pinned: true, create_time: "2025-01-01T00:00:00+01:00", updateTime: "2025-01-02T00:00:00Z" }
		});
		expect(input).toMatchObject({ id: "my-memo", content: "x", visibility: "PUBLIC", pinned: true });
		expect(input.createTime).toBe(Date.UTC(2024, 11, 31, 23));
		expect(input.updateTime).toBe(Date.UTC(2025, 0, 2));
		expect(parse({ memo: { visibility: "VISIBILITY_UNSPECIFIED" } }).visibility).toBe("PRIVATE");
	});

	test.each([
		[{ memoId: "-bad" }],
		[{ memoId: "a".repeat(37) }],
		[{ memoId: "a_b" }],
		[{ memoId: ["a", "b"] }],
		[{ memo: "text" }],
		[{ memo: { content: 5 } }],
		[{ memo: { content: "a\u0000b" } }],
		[{ memo: { content: "lone \ud800 surrogate" } }],
		[{ memo: { content: "\udfff" } }],
		[{ memo: { visibility: "SECRET" } }],
		[{ memo: { visibility: "SPACE" } }],
		[{ memo: { pinned: "yes" } }],
		[{ memo: { createTime: "yesterday" } }],
		[{ memo: { location: { latitude: 91 } } }],
		[{ memo: { location: { longitude: "-180.5" } } }],
		[{ memo: { location: "Paris" } }],
		[{ memo: { space: "notes/1" } }],
		[{ memo: { space: 7 } }]
	])("INVALID_ARGUMENT for %j", params => {
		expect(codeOf(() => parse(params))).toBe("INVALID_ARGUMENT");
	});

	test("the content limit counts UTF-8 bytes and never goes below 8192", () => {
		const euro = "€".repeat(3000); // 9000 bytes, 3000 characters
		expect(codeOf(() => parse({ memo: { content: euro } }))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => parse({ memo: { content: euro } }, 9000))).toBe("OK");
		expect(codeOf(() => parse({ memo: { content: "x".repeat(8192) } }, 100))).toBe("OK");
		expect(codeOf(() => parse({ memo: { content: "x".repeat(8193) } }, 100))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => parse({ memo: { content: "emoji 😀 pairs are fine" } }))).toBe("OK");
	});

	test("space: null or empty is none; a space name is read as its id", () => {
		expect(parse({ memo: { space: null } }).spaceId).toBeNull();
		expect(parse({ memo: { space: "" } }).spaceId).toBeNull();
		expect(parse({ memo: { space: "spaces/abc", visibility: "SPACE" } }).spaceId).toBe("abc");
	});
});

describe("ListMemos query parameters", () => {
	test("defaults and coercions", () => {
		expect(parseListMemosQuery({})).toEqual({
			pageSize: 50,
			pageToken: "",
			state: "NORMAL",
			showDeleted: false,
			filter: "",
			orderBy: ""
		});
		expect(parseListMemosQuery({ pageSize: "5000", state: "ARCHIVED", showDeleted: "TRUE" })).toMatchObject({
			pageSize: 1000,
			state: "ARCHIVED",
			showDeleted: true
		});
		expect(parseListMemosQuery({ page_size: "-3", state: "1", show_deleted: "0" })).toMatchObject({
			pageSize: 50,
			state: "NORMAL",
			showDeleted: false
		});
	});

	test.each([[{ pageSize: "ten" }], [{ state: "GONE" }], [{ showDeleted: "maybe" }], [{ filter: ["a", "b"] }], [{ orderBy: { a: "1" } }]])(
		"INVALID_ARGUMENT for %j",
		params => {
			expect(codeOf(() => parseListMemosQuery(params))).toBe("INVALID_ARGUMENT");
		}
	);
});

describe("ListMemos candidates (contract 7.2)", () => {
	test("anonymous callers see PUBLIC memos, and no archived ones", () => {
		expect(candidateBranches(null, "NORMAL", false)).toEqual([{ parentId: null, state: "NORMAL", deleteTime: null, visibility: "PUBLIC" }]);
		expect(candidateBranches(null, "ARCHIVED", false)).toEqual([]);
	});

	test("signed-in callers see their own memos, others' PUBLIC and PROTECTED ones, and the SPACE ones of each of their spaces, one branch each", () => {
		const common = { parentId: null, state: "NORMAL", deleteTime: null };
		expect(candidateBranches(bob, "NORMAL", false, ["s1", "s2"])).toEqual([
			{ ...common, creatorId: bob.id },
			{ ...common, visibility: "PUBLIC" },
			{ ...common, visibility: "PROTECTED" },
			{ ...common, visibility: "SPACE", spaceId: "s1" },
			{ ...common, visibility: "SPACE", spaceId: "s2" }
		]);
	});

	test("archived: own only; showDeleted adds the caller's own soft-deleted memos as a branch of their own", () => {
		const common = { parentId: null, state: "ARCHIVED", creatorId: admin.id };
		expect(candidateBranches(admin, "ARCHIVED", true)).toEqual([
			{ ...common, deleteTime: null },
			{ ...common, deleteTime: { $gt: 0 } }
		]);
	});

	test("showDeleted adds only the caller's own soft-deleted memos, none for anonymous callers (rule 3)", () => {
		const common = { parentId: null, state: "NORMAL" };
		expect(candidateBranches(bob, "NORMAL", true, ["s1"])).toEqual([
			...candidateBranches(bob, "NORMAL", false, ["s1"]),
			{ ...common, creatorId: bob.id, deleteTime: { $gt: 0 } }
		]);
		expect(candidateBranches(null, "NORMAL", true)).toEqual(candidateBranches(null, "NORMAL", false));
	});
});
