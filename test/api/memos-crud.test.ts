import type { Memo } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

const { api, admin, users: [alice, bob] } = usePopulatedApp(2);

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const GENERATED_ID = /^memos\/[23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz]{22}$/;

async function created(body: Record<string, unknown>, as = alice(), memoId?: string): Promise<Memo> {
	const res = await api.create(as, body, memoId);
	if (res.status !== 200) throw new Error(`CreateMemo answered ${res.status}: ${res.text}`);
	return res.body;
}

function expectError(res: { status: number; body: unknown }, status: number, code: number): void {
	expect({ status: res.status, code: (res.body as { code?: number } | undefined)?.code }).toEqual({ status, code });
	expect(res.body).toMatchObject({ details: [] });
}

describe("CreateMemo (contract 7.3)", () => {
	test("creates a PRIVATE memo with a generated id and derived values, emitting the defaults of 1.3", async () => {
		const before = Date.now();
		const res = await api.create(alice(), { content: "# Plan\n- [ ] draft #work/q1 and https://example.com" });
		expect(res.status).toBe(200);
		const memo = res.body;
		expect(memo.name).toMatch(GENERATED_ID);
		expect(memo).toMatchObject({
			state: "NORMAL",
			creator: "users/user1",
			content: "# Plan\n- [ ] draft #work/q1 and https://example.com",
			visibility: "PRIVATE",
			tags: ["work", "work/q1"],
			pinned: false,
			attachments: [],
			relations: [],
			reactions: [],
			property: { hasLink: true, hasTaskList: true, hasCode: false, hasIncompleteTasks: true, title: "Plan" },
			space: null
		});
		expect(typeof memo.snippet).toBe("string");
		expect(memo.createTime).toMatch(TIMESTAMP);
		expect(memo.updateTime).toBe(memo.createTime);
		expect(Date.parse(memo.createTime as string)).toBeGreaterThanOrEqual(before - 1);
		for (const absent of ["location", "parent", "deleteTime"]) expect(memo).not.toHaveProperty(absent);
		expect((await api.get(alice(), memo.name)).body).toEqual(memo);
	});

	test("anonymous callers are UNAUTHENTICATED", async () => {
		expectError(await api.create(null, { content: "x" }), 401, 16);
	});

	test("a chosen memoId (trimmed) names the memo; a taken one is ALREADY_EXISTS, deleted memos included, until purged", async () => {
		const memo = await created({ content: "mine" }, alice(), "  chosen-id-1 ");
		expect(memo.name).toBe("memos/chosen-id-1");
		expectError(await api.create(bob(), { content: "again" }, "chosen-id-1"), 409, 6);
		expect((await api.remove(alice(), memo.name)).status).toBe(200);
		expectError(await api.create(alice(), { content: "again" }, "chosen-id-1"), 409, 6);
		expect((await api.remove(alice(), memo.name, "true")).status).toBe(200);
		expect((await api.create(alice(), { content: "reborn" }, "chosen-id-1")).status).toBe(200);
	});

	test.each(["-x", "x-", "a_b", "a".repeat(37), "with space", "ünï", "a/b"])("memoId %p violates the identifier rule: 400 code 3", async memoId => {
		expectError(await api.create(alice(), { content: "x" }, memoId), 400, 3);
	});

	test("ids are case-sensitive", async () => {
		await created({ content: "lower" }, alice(), "case-test");
		expect((await api.create(alice(), { content: "upper" }, "CASE-TEST")).status).toBe(200);
	});

	test("content is limited to MEMO_RELATED contentLengthLimit UTF-8 bytes", async () => {
		expect((await api.create(alice(), { content: "é".repeat(4096) })).status).toBe(200); // 8192 bytes
		expectError(await api.create(alice(), { content: `${"é".repeat(4096)}x` }), 400, 3);
		const raise = await api.request("PATCH", "/instance/settings/MEMO_RELATED", {
			as: admin(),
			body: { memoRelatedSetting: { contentLengthLimit: 10000 } }
		});
		expect(raise.status).toBe(200);
		try {
			expect((await api.create(alice(), { content: "x".repeat(10000) })).status).toBe(200);
			expectError(await api.create(alice(), { content: "x".repeat(10001) }), 400, 3);
		} finally {
			await api.request("PATCH", "/instance/settings/MEMO_RELATED", { as: admin(), body: { memoRelatedSetting: { contentLengthLimit: 8192 } } });
		}
	});

	test("lone surrogates (invalid UTF-8) and NUL in content are INVALID_ARGUMENT", async () => {
		expectError(await api.create(alice(), '{"content":"bad \\ud800 half"}'), 400, 3);
		expectError(await api.create(alice(), '{"content":"\\udc00"}'), 400, 3);
		expectError(await api.create(alice(), '{"content":"nul \\u0000 byte"}'), 400, 3);
		expect((await api.create(alice(), '{"content":"pair \\ud83d\\ude00 ok"}')).body.content).toBe("pair 😀 ok");
	});

	test("honours visibility (by name or number), pinned, location and times; ignores state and output-only fields", async () => {
		const memo = await created({
			name: "memos/ignored",
			creator: "users/bob",
			state: "ARCHIVED",
			tags: ["fake"],
			content: "plain",
			visibility: 3,
			pinned: true,
			location: { placeholder: "Paris", latitude: 48.8566, longitude: "2.3522" },
			createTime: "2020-01-02T03:04:05.678+01:00",
			update_time: "2021-01-01T00:00:00Z"
		});
		expect(memo.name).not.toBe("memos/ignored");
		expect(memo).toMatchObject({
			creator: "users/user1",
			state: "NORMAL",
			tags: [],
			visibility: "PUBLIC",
			pinned: true,
			location: { placeholder: "Paris", latitude: 48.8566, longitude: 2.3522 },
			createTime: "2020-01-02T02:04:05.678Z",
			updateTime: "2021-01-01T00:00:00.000Z"
		});
		expect((await created({ visibility: "VISIBILITY_UNSPECIFIED" })).visibility).toBe("PRIVATE");
	});

	test("SPACE needs a space; a space the caller is not a member of is NOT_FOUND", async () => {
		expectError(await api.create(alice(), { content: "x", visibility: "SPACE" }), 400, 3);
		expectError(await api.create(alice(), { content: "x", visibility: "SPACE", space: "" }), 400, 3);
		expectError(await api.create(alice(), { content: "x", visibility: "SPACE", space: "spaces/nope" }), 404, 5);
		expectError(await api.create(alice(), { content: "x", space: "notes/1" }), 400, 3);
		expect((await created({ content: "x", space: null })).space).toBeNull();
	});

	test.each([
		["content of the wrong type", { content: 42 }],
		["unknown visibility", { visibility: "SECRET" }],
		["pinned as a string", { pinned: "yes" }],
		["latitude out of range", { location: { latitude: 90.5 } }],
		["a bad time", { createTime: "yesterday" }],
		["attachments named with another kind", { attachments: [{ name: "memos/a" }] }]
	])("%s: 400 code 3", async (_what, body) => {
		expectError(await api.create(alice(), body), 400, 3);
	});

	test("empty attachments and relations lists are accepted", async () => {
		expect((await api.create(alice(), { content: "x", attachments: [], relations: [] })).status).toBe(200);
	});

	test("a body that is not a JSON object is INVALID_ARGUMENT", async () => {
		expectError(await api.create(alice(), "[1,2]"), 400, 3);
		expectError(await api.create(alice(), "{not json"), 400, 3);
	});
});

describe("GetMemo and the read rule (contract 7.4, 1.10, 2.2)", () => {
	let memos: Record<"private" | "protected" | "public" | "archived" | "deleted", string>;

	beforeAll(async () => {
		memos = {
			private: (await created({ content: "private", visibility: "PRIVATE" })).name,
			protected: (await created({ content: "protected", visibility: "PROTECTED" })).name,
			public: (await created({ content: "public", visibility: "PUBLIC" })).name,
			archived: (await created({ content: "archived", visibility: "PUBLIC" })).name,
			deleted: (await created({ content: "deleted", visibility: "PUBLIC" })).name
		};
		expect((await api.update(alice(), memos.archived, "state", { state: "ARCHIVED" })).status).toBe(200);
		expect((await api.remove(alice(), memos.deleted)).status).toBe(200);
	});

	afterEach(async () => {
		await api.setAccessMode(admin(), "PRIVATE");
	});

	test("the creator reads every state but deleted", async () => {
		for (const kind of ["private", "protected", "public", "archived"] as const) {
			expect((await api.get(alice(), memos[kind])).status).toBe(200);
		}
		expectError(await api.get(alice(), memos.deleted), 404, 5);
	});

	test("another user: PROTECTED and PUBLIC yes, PRIVATE PERMISSION_DENIED, archived and deleted NOT_FOUND", async () => {
		expect((await api.get(bob(), memos.protected)).status).toBe(200);
		expect((await api.get(bob(), memos.public)).status).toBe(200);
		expectError(await api.get(bob(), memos.private), 403, 7);
		expectError(await api.get(bob(), memos.archived), 404, 5);
		expectError(await api.get(bob(), memos.deleted), 404, 5);
		expectError(await api.get(bob(), "memos/does-not-exist"), 404, 5);
	});

	test("an instance admin gains no read access to others' PRIVATE or ARCHIVED memos", async () => {
		expectError(await api.get(admin(), memos.private), 403, 7);
		expectError(await api.get(admin(), memos.archived), 404, 5);
	});

	test("anonymous on a private instance: UNAUTHENTICATED before anything else, even for unknown memos", async () => {
		for (const name of [memos.public, memos.private, "memos/does-not-exist", "memos/bad_id!"]) {
			expectError(await api.get(null, name), 401, 16);
		}
	});

	test("anonymous on a public instance: PUBLIC only; NOT_FOUND, then UNAUTHENTICATED for the rest", async () => {
		await api.setAccessMode(admin(), "PUBLIC");
		const res = await api.get(null, memos.public);
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ content: "public", creator: "users/user1" });
		expectError(await api.get(null, memos.protected), 401, 16);
		expectError(await api.get(null, memos.private), 401, 16);
		expectError(await api.get(null, memos.archived), 404, 5);
		expectError(await api.get(null, memos.deleted), 404, 5);
		expectError(await api.get(null, "memos/does-not-exist"), 404, 5);
	});

	test("ids in paths are not validated: an impossible id is NOT_FOUND", async () => {
		expectError(await api.get(alice(), "memos/not_an_id"), 404, 5);
		expectError(await api.get(alice(), "memos/-"), 404, 5);
	});
});

describe("UpdateMemo (contract 7.5)", () => {
	test("content replaces the derived values and moves updateTime", async () => {
		const memo = await created({ content: "old #one", createTime: "2020-01-01T00:00:00Z", updateTime: "2020-01-01T00:00:00Z" });
		const res = await api.update(alice(), memo.name, "content", { content: "new #two/three `code`", pinned: true });
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ content: "new #two/three `code`", tags: ["two", "two/three"], pinned: false, createTime: memo.createTime });
		expect((res.body.property as Record<string, unknown>).hasCode).toBe(true);
		expect(Date.parse(res.body.updateTime as string)).toBeGreaterThan(Date.parse("2025-01-01T00:00:00Z"));
		expect((await api.get(alice(), memo.name)).body).toEqual(res.body);
	});

	test("paths in snake_case or lowerCamelCase; several at once; body fields outside the mask ignored", async () => {
		const memo = await created({ content: "x" });
		const res = await api.update(alice(), memo.name, " visibility , pinned,createTime ", {
			name: "memos/other",
			visibility: "PROTECTED",
			pinned: true,
			createTime: "2019-05-05T05:05:05Z",
			content: "ignored"
		});
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ name: memo.name, visibility: "PROTECTED", pinned: true, createTime: "2019-05-05T05:05:05.000Z", content: "x" });
	});

	test("update_time: the given time, or now when the body leaves it unset", async () => {
		const memo = await created({ content: "x" });
		const given = await api.update(alice(), memo.name, "update_time", { updateTime: "2022-02-02T02:02:02.002Z" });
		expect(given.body.updateTime).toBe("2022-02-02T02:02:02.002Z");
		const now = await api.update(alice(), memo.name, "update_time", {});
		expect(Date.parse(now.body.updateTime as string)).toBeGreaterThan(Date.parse("2025-01-01T00:00:00Z"));
	});

	test("visibility VISIBILITY_UNSPECIFIED means PRIVATE; SPACE without a space is INVALID_ARGUMENT", async () => {
		const memo = await created({ content: "x", visibility: "PUBLIC" });
		expect((await api.update(alice(), memo.name, "visibility", { visibility: "VISIBILITY_UNSPECIFIED" })).body.visibility).toBe("PRIVATE");
		expectError(await api.update(alice(), memo.name, "visibility", { visibility: "SPACE" }), 400, 3);
		expectError(await api.update(alice(), memo.name, "visibility,space", { visibility: "SPACE", space: null }), 400, 3);
	});

	test("space: moving into a space the caller is not a member of is NOT_FOUND; null keeps a memo without space", async () => {
		const memo = await created({ content: "x", visibility: "PROTECTED" });
		expectError(await api.update(alice(), memo.name, "space", { space: "spaces/somewhere" }), 404, 5);
		expectError(await api.update(admin(), memo.name, "space", { space: "spaces/somewhere" }), 404, 5);
		expectError(await api.update(alice(), memo.name, "space", { space: "rooms/1" }), 400, 3);
		expect((await api.update(alice(), memo.name, "space", { space: null })).body.space).toBeNull();
	});

	test("archive and unarchive; STATE_UNSPECIFIED is INVALID_ARGUMENT", async () => {
		const memo = await created({ content: "x" });
		expect((await api.update(alice(), memo.name, "state", { state: "ARCHIVED" })).body.state).toBe("ARCHIVED");
		expect((await api.get(alice(), memo.name)).body.state).toBe("ARCHIVED");
		expect((await api.update(alice(), memo.name, "state", { state: 1 })).body.state).toBe("NORMAL");
		expectError(await api.update(alice(), memo.name, "state", { state: "STATE_UNSPECIFIED" }), 400, 3);
		expectError(await api.update(alice(), memo.name, "state", {}), 400, 3);
	});

	test("location is replaced, and removed when the body leaves it unset", async () => {
		const memo = await created({ content: "x" });
		const set = await api.update(alice(), memo.name, "location", { location: { placeholder: "Home", latitude: -33.9, longitude: 151.2 } });
		expect(set.body.location).toEqual({ placeholder: "Home", latitude: -33.9, longitude: 151.2 });
		const removed = await api.update(alice(), memo.name, "location", {});
		expect(removed.status).toBe(200);
		expect(removed.body).not.toHaveProperty("location");
		expectError(await api.update(alice(), memo.name, "location", { location: { longitude: 181 } }), 400, 3);
	});

	test.each([
		["a missing mask", undefined],
		["an empty mask", " "],
		["an unknown path", "content,title"],
		["display_time", "display_time"],
		["a nested path", "location.latitude"],
		["*", "*"],
		["create_time without a value", "create_time"]
	])("%s: 400 code 3", async (_what, mask) => {
		const memo = await created({ content: "x" });
		expectError(await api.update(alice(), memo.name, mask, { content: "y" }), 400, 3);
		expect((await api.get(alice(), memo.name)).body.content).toBe("x");
	});

	test("content over the limit, lone surrogates and NUL are INVALID_ARGUMENT", async () => {
		const memo = await created({ content: "x" });
		expectError(await api.update(alice(), memo.name, "content", { content: "x".repeat(8193) }), 400, 3);
		const raw = await api.request("PATCH", `/${memo.name}`, { as: alice(), query: { updateMask: "content" }, body: '{"content":"\\ud800"}' });
		expectError(raw, 400, 3);
		expectError(await api.update(alice(), memo.name, "content", { content: "\u0000" }), 400, 3);
	});

	test("only the creator or an instance ADMIN; anonymous UNAUTHENTICATED; deleted or unknown NOT_FOUND", async () => {
		const memo = await created({ content: "x", visibility: "PUBLIC" });
		expectError(await api.update(bob(), memo.name, "pinned", { pinned: true }), 403, 7);
		expectError(await api.update(null, memo.name, "pinned", { pinned: true }), 401, 16);
		const byAdmin = await api.update(admin(), memo.name, "pinned", { pinned: true });
		expect(byAdmin.status).toBe(200);
		expect(byAdmin.body).toMatchObject({ pinned: true, creator: "users/user1" });
		expectError(await api.update(alice(), "memos/does-not-exist", "pinned", { pinned: true }), 404, 5);
		await api.remove(alice(), memo.name);
		expectError(await api.update(alice(), memo.name, "pinned", { pinned: false }), 404, 5);
		expectError(await api.update(admin(), memo.name, "pinned", { pinned: false }), 404, 5);
	});

	test("an admin's update of another user's archived memo is NOT_FOUND, as the read is (3.1)", async () => {
		const memo = await created({ content: "x", visibility: "PUBLIC" });
		await api.update(alice(), memo.name, "state", { state: "ARCHIVED" });
		expectError(await api.update(admin(), memo.name, "state", { state: "NORMAL" }), 404, 5);
		expect((await api.get(alice(), memo.name)).body.state).toBe("ARCHIVED");
	});
});

describe("DeleteMemo (contract 7.6)", () => {
	test("a soft delete answers an empty 200, hides the memo, and cannot be repeated", async () => {
		const memo = await created({ content: "x", visibility: "PUBLIC" });
		const res = await api.remove(alice(), memo.name);
		expect(res.status).toBe(200);
		expect(res.text).toBe("");
		expectError(await api.get(alice(), memo.name), 404, 5);
		expectError(await api.remove(alice(), memo.name), 404, 5);
		expectError(await api.remove(alice(), memo.name, "false"), 404, 5);
	});

	test("force purges a memo, deleted or not", async () => {
		const live = await created({ content: "x" }, alice(), "purge-live");
		expect((await api.remove(alice(), live.name, "true")).status).toBe(200);
		expectError(await api.get(alice(), live.name), 404, 5);
		expectError(await api.remove(alice(), live.name, "true"), 404, 5);
		expect((await api.create(alice(), { content: "again" }, "purge-live")).status).toBe(200);

		const deleted = await created({ content: "x" }, alice(), "purge-deleted");
		await api.remove(alice(), deleted.name);
		expect((await api.remove(alice(), deleted.name, "1")).status).toBe(200);
		const listed = await api.list(alice(), { showDeleted: "true", filter: 'content == "x"' });
		expect(listed.body.memos.map(m => m.name)).not.toContain(deleted.name);
	});

	test("the creator or an instance ADMIN; others PERMISSION_DENIED; anonymous UNAUTHENTICATED", async () => {
		const memo = await created({ content: "x", visibility: "PUBLIC" });
		expectError(await api.remove(bob(), memo.name), 403, 7);
		expectError(await api.remove(bob(), memo.name, "true"), 403, 7);
		expectError(await api.remove(null, memo.name), 401, 16);
		expect((await api.remove(admin(), memo.name)).status).toBe(200);
		expectError(await api.remove(bob(), "memos/does-not-exist"), 404, 5);
	});

	test("an invalid force is INVALID_ARGUMENT", async () => {
		const memo = await created({ content: "x" });
		expectError(await api.remove(alice(), memo.name, "maybe"), 400, 3);
		expect((await api.get(alice(), memo.name)).status).toBe(200);
	});
});
