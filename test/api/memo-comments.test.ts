import type { Session } from "../support/users.js";
import type { Memo } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

const { api, admin, users: [alice, bob, carol] } = usePopulatedApp(3);

async function created(body: Record<string, unknown>, as: Session = alice(), memoId?: string): Promise<Memo> {
	const res = await api.create(as, body, memoId);
	if (res.status !== 200) throw new Error(`CreateMemo answered ${res.status}: ${res.text}`);
	return res.body;
}

function comment(as: Session | null, parent: string, body: unknown, commentId?: string) {
	return api.request<Memo>("POST", `/${parent}/comments`, { as, body, query: commentId === undefined ? {} : { commentId } });
}

async function commented(as: Session, parent: string, body: Record<string, unknown>, commentId?: string): Promise<Memo> {
	const res = await comment(as, parent, body, commentId);
	if (res.status !== 200) throw new Error(`CreateMemoComment answered ${res.status}: ${res.text}`);
	return res.body;
}

function listComments(as: Session | null, parent: string, query: Record<string, string> = {}) {
	return api.request<{ memos: Memo[]; nextPageToken: string }>("GET", `/${parent}/comments`, { as, query });
}

function expectError(res: { status: number; body: unknown }, status: number, code: number): void {
	expect({ status: res.status, code: (res.body as { code?: number } | undefined)?.code }).toEqual({ status, code });
}

describe("CreateMemoComment (contract 7.7)", () => {
	test("creates an independent memo with parent and its COMMENT relation, inheriting nothing", async () => {
		const parent = await created({ content: "plan", visibility: "PUBLIC", pinned: true });
		const res = await comment(bob(), parent.name, { content: "looks good" }, "c-first");
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({
			name: "memos/c-first",
			creator: "users/user2",
			content: "looks good",
			visibility: "PRIVATE",
			pinned: false,
			space: null,
			parent: parent.name,
			relations: [{ memo: { name: "memos/c-first", snippet: "looks good" }, relatedMemo: { name: parent.name, snippet: "plan" }, type: "COMMENT" }]
		});
		// GetMemo of a comment: parent set, same relation; the parent lists it too (bob can read his own comment).
		expect((await api.get(bob(), "memos/c-first")).body).toEqual(res.body);
		const parentAsBob = (await api.get(bob(), parent.name)).body;
		expect(parentAsBob.relations).toEqual(res.body.relations);
		expect(parentAsBob).not.toHaveProperty("parent");
		// Alice cannot read bob's PRIVATE comment: her view of the parent skips the relation.
		expect((await api.get(alice(), parent.name)).body.relations).toEqual([]);
	});

	test("comments are not ListMemos candidates; a comment of a comment is allowed", async () => {
		const parent = await created({ content: "p", visibility: "PUBLIC" });
		const first = await commented(alice(), parent.name, { content: "c1", visibility: "PUBLIC" });
		const nested = await commented(alice(), first.name, { content: "c2", visibility: "PUBLIC" });
		expect(nested.parent).toBe(first.name);
		const names = (await api.list(alice(), { pageSize: "1000" })).body.memos.map(memo => memo.name);
		expect(names).toContain(parent.name);
		expect(names).not.toContain(first.name);
		expect(names).not.toContain(nested.name);
	});

	test("the commented memo must be readable (1.10) and NORMAL", async () => {
		const secret = await created({ content: "secret" });
		expectError(await comment(bob(), secret.name, { content: "x" }), 403, 7);
		expectError(await comment(null, secret.name, { content: "x" }), 401, 16);
		expectError(await comment(bob(), "memos/nope", { content: "x" }), 404, 5);
		const archived = await created({ content: "old", visibility: "PUBLIC" });
		expect((await api.update(alice(), archived.name, "state", { state: "ARCHIVED" })).status).toBe(200);
		expectError(await comment(alice(), archived.name, { content: "x" }), 400, 9);
		expectError(await comment(bob(), archived.name, { content: "x" }), 404, 5);
		const deleted = await created({ content: "gone", visibility: "PUBLIC" });
		expect((await api.remove(alice(), deleted.name)).status).toBe(200);
		expectError(await comment(alice(), deleted.name, { content: "x" }), 404, 5);
	});

	test("the body follows CreateMemo's rules: commentId, content, visibility, duplicate ids", async () => {
		const parent = await created({ content: "p", visibility: "PROTECTED" });
		expectError(await comment(bob(), parent.name, { content: "x" }, "-bad-"), 400, 3);
		expectError(await comment(bob(), parent.name, { content: 42 }), 400, 3);
		expectError(await comment(bob(), parent.name, { visibility: "SPACE" }), 400, 3);
		expectError(await comment(bob(), parent.name, "[1]"), 400, 3);
		await commented(bob(), parent.name, { content: "x" }, "c-dup");
		expectError(await comment(bob(), parent.name, { content: "y" }, "c-dup"), 409, 6);
		expectError(await comment(bob(), parent.name, { content: "y" }, parent.name.slice(6)), 409, 6);
	});
});

describe("ListMemoComments (contract 7.7)", () => {
	test("the comments the caller can read, create_time asc by default, orderBy and pages", async () => {
		const parent = await created({ content: "thread", visibility: "PUBLIC" });
		const t = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s)).toISOString();
		const pub = await commented(bob(), parent.name, { content: "public", visibility: "PUBLIC", createTime: t(3) });
		const prot = await commented(bob(), parent.name, { content: "protected", visibility: "PROTECTED", createTime: t(1) });
		const priv = await commented(bob(), parent.name, { content: "private", createTime: t(2) });
		const own = await commented(carol(), parent.name, { content: "carol's", createTime: t(4) });
		const archived = await commented(carol(), parent.name, { content: "archived", visibility: "PUBLIC", createTime: t(5) });
		expect((await api.update(carol(), archived.name, "state", { state: "ARCHIVED" })).status).toBe(200);
		const deleted = await commented(bob(), parent.name, { content: "deleted", visibility: "PUBLIC", createTime: t(6) });
		expect((await api.remove(bob(), deleted.name)).status).toBe(200);

		const names = async (as: Session, query: Record<string, string> = {}) => {
			const res = await listComments(as, parent.name, query);
			expect(res.status).toBe(200);
			return res.body.memos.map(memo => memo.name);
		};
		expect(await names(bob())).toEqual([prot.name, priv.name, pub.name]);
		expect(await names(carol())).toEqual([prot.name, pub.name, own.name]);
		expect(await names(alice(), { orderBy: "create_time desc" })).toEqual([pub.name, prot.name]);
		const first = await listComments(bob(), parent.name, { pageSize: "2" });
		expect(first.body.memos.map(memo => memo.name)).toEqual([prot.name, priv.name]);
		expect(first.body.memos[0]).toMatchObject({ parent: parent.name });
		const second = await listComments(bob(), parent.name, { pageSize: "2", pageToken: first.body.nextPageToken });
		expect(second.body).toMatchObject({ memos: [{ name: pub.name }], nextPageToken: "" });
		expectError(await listComments(bob(), parent.name, { pageToken: first.body.nextPageToken, orderBy: "create_time desc" }), 400, 3);
		expectError(await listComments(bob(), parent.name, { orderBy: "pinned" }), 400, 3);
		expectError(await listComments(bob(), parent.name, { pageToken: "garbage" }), 400, 3);
	});

	test("requires read access to the memo; anonymous only on a public instance, PUBLIC comments only", async () => {
		const secret = await created({ content: "secret" });
		expectError(await listComments(bob(), secret.name), 403, 7);
		expectError(await listComments(bob(), "memos/nope"), 404, 5);
		const parent = await created({ content: "open", visibility: "PUBLIC" });
		const pub = await commented(bob(), parent.name, { content: "public", visibility: "PUBLIC" });
		await commented(bob(), parent.name, { content: "protected", visibility: "PROTECTED" });
		expectError(await listComments(null, parent.name), 401, 16);
		await api.setAccessMode(admin(), "PUBLIC");
		try {
			const res = await listComments(null, parent.name);
			expect(res.body.memos.map(memo => memo.name)).toEqual([pub.name]);
		} finally {
			await api.setAccessMode(admin(), "PRIVATE");
		}
	});
});

describe("Deleting a commented memo (contract 7.6, rule 5)", () => {
	test.each([["soft", undefined], ["forced", "true"]])("%s delete turns its comments into ordinary memos", async (_what, force) => {
		const parent = await created({ content: "to delete", visibility: "PUBLIC" });
		const child = await commented(bob(), parent.name, { content: "survivor", visibility: "PUBLIC" });
		expect((await api.remove(alice(), parent.name, force)).status).toBe(200);
		const after = await api.get(bob(), child.name);
		expect(after.status).toBe(200);
		expect(after.body).not.toHaveProperty("parent");
		expect(after.body.relations).toEqual([]);
		expect((await api.list(bob(), { pageSize: "1000" })).body.memos.map(memo => memo.name)).toContain(child.name);
	});

	test("a deleted comment loses its own COMMENT relation too", async () => {
		const parent = await created({ content: "stays", visibility: "PUBLIC" });
		const child = await commented(alice(), parent.name, { content: "removed", visibility: "PUBLIC" });
		expect((await api.remove(alice(), child.name)).status).toBe(200);
		expect((await api.get(alice(), parent.name)).body.relations).toEqual([]);
		expect((await listComments(alice(), parent.name)).body.memos).toEqual([]);
		const listed = (await api.list(alice(), { pageSize: "1000", showDeleted: "true" })).body.memos.find(memo => memo.name === child.name);
		expect(listed).toMatchObject({ relations: [] });
		expect(listed).not.toHaveProperty("parent");
	});
});
