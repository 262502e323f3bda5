import { readdir } from "node:fs/promises";
import path from "node:path";
import type { Session } from "../support/users.js";
import type { Answer } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

/** The attachments of a memo (contract 7.9) and what memos do to their attachments (4.1, 7.6, 8.1). */

const { app, api, admin, users: [alice, bob] } = usePopulatedApp(2);

type Attachment = Record<string, unknown> & { name: string };

function expectError(res: Answer<unknown>, status: number, code: number): void {
	expect({ status: res.status, code: (res.body as { code?: number } | undefined)?.code }).toEqual({ status, code });
}

async function memo(as: Session, body: Record<string, unknown> = { content: "memo" }): Promise<string> {
	const res = await api.request<{ name: string }>("POST", "/memos", { as, body });
	if (res.status !== 200) throw new Error(`CreateMemo answered ${res.status}: ${res.text}`);
	return res.body.name;
}

async function attachment(as: Session, filename = "file.txt", extra: Record<string, unknown> = {}): Promise<Attachment> {
	const res = await api.request<Attachment>("POST", "/attachments", { as, body: { filename, content: "aGVsbG8=", ...extra } });
	if (res.status !== 200) throw new Error(`CreateAttachment answered ${res.status}: ${res.text}`);
	return res.body;
}

function setAttachments(as: Session, memoName: string, names: string[]) {
	return api.request("PATCH", `/${memoName}/attachments`, { as, body: { attachments: names.map(name => ({ name })) } });
}

async function linked(as: Session, memoName: string, query: Record<string, string> = {}): Promise<string[]> {
	const res = await api.request<{ attachments: Attachment[]; nextPageToken: string }>("GET", `/${memoName}/attachments`, { as, query });
	if (res.status !== 200) throw new Error(`ListMemoAttachments answered ${res.status}: ${res.text}`);
	return res.body.attachments.map(a => a.name);
}

async function blobCount(): Promise<number> {
	return (await readdir(path.join(app().dataDir, "blobs", "attachments")).catch(() => [])).length;
}

describe("SetMemoAttachments and ListMemoAttachments (contract 7.9)", () => {
	test("replaces the set in the given order, collapsing duplicates; dropped ones are unlinked, not deleted", async () => {
		const m = await memo(alice());
		const [a, b, c] = [await attachment(alice(), "a.txt"), await attachment(alice(), "b.txt"), await attachment(alice(), "c.txt")];
		const set = await setAttachments(alice(), m, [b.name, a.name, b.name]);
		expect(set.status).toBe(200);
		expect(set.text).toBe("");
		expect(await linked(alice(), m)).toEqual([b.name, a.name]);
		expect((await api.request<Attachment>("GET", `/${a.name}`, { as: alice() })).body).toMatchObject({ memo: m, space: null });

		expect((await setAttachments(alice(), m, [c.name, a.name])).status).toBe(200);
		expect(await linked(alice(), m)).toEqual([c.name, a.name]);
		const dropped = await api.request<Attachment>("GET", `/${b.name}`, { as: alice() });
		expect(dropped.status).toBe(200);
		expect(dropped.body).not.toHaveProperty("memo");

		expect((await setAttachments(alice(), m, [c.name, a.name])).status).toBe(200);
		expect(await linked(alice(), m)).toEqual([c.name, a.name]);
		expect((await setAttachments(alice(), m, [])).status).toBe(200);
		expect(await linked(alice(), m)).toEqual([]);
	});

	test("memo responses carry their attachments in display order (GetMemo, ListMemos, UpdateMemo)", async () => {
		const m = await memo(alice(), { content: "carrying" });
		const [a, b] = [await attachment(alice(), "one.txt"), await attachment(alice(), "two.txt")];
		await setAttachments(alice(), m, [b.name, a.name]);
		const got = await api.request<{ attachments: Attachment[] }>("GET", `/${m}`, { as: alice() });
		expect(got.body.attachments.map(x => x.name)).toEqual([b.name, a.name]);
		expect(got.body.attachments[0]).toMatchObject({ filename: "two.txt", memo: m, space: null });
		const listed = await api.request<{ memos: { name: string; attachments: Attachment[] }[] }>("GET", "/memos", { as: alice() });
		expect(listed.body.memos.find(x => x.name === m)?.attachments.map(x => x.name)).toEqual([b.name, a.name]);
		const updated = await api.request<{ attachments: Attachment[] }>("PATCH", `/${m}`, { as: alice(), query: { updateMask: "pinned" }, body: { pinned: true } });
		expect(updated.body.attachments.map(x => x.name)).toEqual([b.name, a.name]);
	});

	test("SetMemoAttachments sets the memo's updateTime", async () => {
		const m = await memo(alice());
		const before = (await api.request<{ updateTime: string }>("GET", `/${m}`, { as: alice() })).body.updateTime;
		await new Promise(resolve => setTimeout(resolve, 5));
		await setAttachments(alice(), m, [(await attachment(alice())).name]);
		const after = (await api.request<{ updateTime: string }>("GET", `/${m}`, { as: alice() })).body.updateTime;
		expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
	});

	test("the rules: unknown or another user's attachment NOT_FOUND; one linked elsewhere FAILED_PRECONDITION; not the creator PERMISSION_DENIED", async () => {
		const m = await memo(alice());
		const other = await memo(alice());
		const mine = await attachment(alice());
		const bobs = await attachment(bob());
		expectError(await setAttachments(alice(), m, ["attachments/missing"]), 404, 5);
		expectError(await setAttachments(alice(), m, [bobs.name]), 404, 5);
		await setAttachments(alice(), other, [mine.name]);
		expectError(await setAttachments(alice(), m, [mine.name]), 400, 9);
		expectError(await setAttachments(bob(), m, [bobs.name]), 403, 7);
		expectError(await setAttachments(alice(), "memos/missing", []), 404, 5);
		expectError(await api.request("PATCH", `/${m}/attachments`, { as: alice(), body: { attachments: [{ name: "memos/x" }] } }), 400, 3);
		expect(await linked(alice(), m)).toEqual([]);
	});

	test("an ADMIN may set the attachments of another user's memo the ADMIN can read, with that user's attachments", async () => {
		const m = await memo(alice(), { content: "memo", visibility: "PROTECTED" });
		const a = await attachment(alice());
		expect((await setAttachments(admin(), m, [a.name])).status).toBe(200);
		expect(await linked(alice(), m)).toEqual([a.name]);
	});

	test("reading follows the memo: PROTECTED readable by others, PRIVATE PERMISSION_DENIED, anonymous UNAUTHENTICATED", async () => {
		const protectedMemo = await memo(alice(), { content: "p", visibility: "PROTECTED" });
		const privateMemo = await memo(alice(), { content: "q" });
		const a = await attachment(alice(), "p.txt", { memo: protectedMemo });
		const b = await attachment(alice(), "q.txt", { memo: privateMemo });
		expect(await linked(bob(), protectedMemo)).toEqual([a.name]);
		expect((await api.request("GET", `/${a.name}`, { as: bob() })).status).toBe(200);
		expectError(await api.request("GET", `/${privateMemo}/attachments`, { as: bob() }), 403, 7);
		expectError(await api.request("GET", `/${b.name}`, { as: bob() }), 403, 7);
		expectError(await api.request("GET", `/${protectedMemo}/attachments`, { as: null }), 401, 16);
	});

	test("ListMemoAttachments pages in display order", async () => {
		const m = await memo(alice());
		const names: string[] = [];
		for (let i = 0; i < 5; i++) names.push((await attachment(alice(), `p${i}.txt`)).name);
		await setAttachments(alice(), m, [...names].reverse());
		const first = await api.request<{ attachments: Attachment[]; nextPageToken: string }>("GET", `/${m}/attachments`, { as: alice(), query: { pageSize: "2" } });
		expect(first.body.attachments.map(a => a.name)).toEqual([names[4], names[3]]);
		const rest = await linked(alice(), m, { pageSize: "10", pageToken: first.body.nextPageToken });
		expect(rest).toEqual([names[2], names[1], names[0]]);
	});
});

describe("attachments on CreateMemo and UpdateMemo (contract 7.3, 7.5)", () => {
	test("CreateMemo links the named attachments in order; a rule broken creates nothing", async () => {
		const [a, b] = [await attachment(alice(), "c1.txt"), await attachment(alice(), "c2.txt")];
		const res = await api.request<{ name: string; attachments: Attachment[] }>("POST", "/memos", { as: alice(), body: { content: "with", attachments: [{ name: b.name }, { name: a.name }, { name: b.name }] } });
		expect(res.status).toBe(200);
		expect(res.body.attachments.map(x => x.name)).toEqual([b.name, a.name]);
		expect(await linked(alice(), res.body.name)).toEqual([b.name, a.name]);

		const bobs = await attachment(bob());
		const refused = await api.request("POST", "/memos", { as: alice(), query: { memoId: "never-made" }, body: { content: "x", attachments: [{ name: bobs.name }] } });
		expectError(refused, 404, 5);
		expectError(await api.request("GET", "/memos/never-made", { as: alice() }), 404, 5);
		expectError(await api.request("POST", "/memos", { as: alice(), body: { content: "x", attachments: [{ name: a.name }] } }), 400, 9);
	});

	test("UpdateMemo with the attachments mask replaces the set as SetMemoAttachments does", async () => {
		const m = await memo(alice());
		const [a, b] = [await attachment(alice(), "u1.txt"), await attachment(alice(), "u2.txt")];
		const update = (names: string[]) =>
			api.request<{ attachments: Attachment[] }>("PATCH", `/${m}`, { as: alice(), query: { updateMask: "attachments" }, body: { attachments: names.map(name => ({ name })) } });
		expect((await update([a.name, b.name])).body.attachments.map(x => x.name)).toEqual([a.name, b.name]);
		expect((await update([b.name])).body.attachments.map(x => x.name)).toEqual([b.name]);
		expect((await api.request("GET", `/${a.name}`, { as: alice() })).body).not.toHaveProperty("memo");
		expectError(await update(["attachments/missing"]), 404, 5);
		expect(await linked(alice(), m)).toEqual([b.name]);
	});
});

describe("what memos do to their attachments", () => {
	test("CreateAttachment with a memo appends to its set; the memo must exist and be the caller's", async () => {
		const m = await memo(alice());
		const first = await attachment(alice(), "1.txt", { memo: m });
		const second = await attachment(alice(), "2.txt", { memo: m });
		expect(await linked(alice(), m)).toEqual([first.name, second.name]);
		expectError(await api.request("POST", "/attachments", { as: alice(), body: { filename: "x.txt", memo: "memos/missing" } }), 404, 5);
		expectError(await api.request("POST", "/attachments", { as: bob(), body: { filename: "x.txt", memo: m } }), 403, 7);
	});

	test("a soft-deleted memo's attachments are neither listed nor read; a purge deletes them with their bytes", async () => {
		const m = await memo(alice());
		const a = await attachment(alice(), "doomed.txt", { memo: m });
		const filter = { filter: 'filename == "doomed.txt"' };
		expect((await api.request<{ attachments: Attachment[] }>("GET", "/attachments", { as: alice(), query: filter })).body.attachments).toHaveLength(1);
		await api.request("DELETE", `/${m}`, { as: alice() });
		expect((await api.request<{ attachments: Attachment[] }>("GET", "/attachments", { as: alice(), query: filter })).body.attachments).toHaveLength(0);
		expectError(await api.request("GET", `/${a.name}`, { as: alice() }), 404, 5);
		const blobs = await blobCount();
		expect((await api.request("DELETE", `/${m}`, { as: alice(), query: { force: "true" } })).status).toBe(200);
		expect(await blobCount()).toBe(blobs - 1);
		expectError(await api.request("GET", `/${a.name}`, { as: admin() }), 404, 5);
	});

	test("deleting an attachment unlinks it from its memo", async () => {
		const m = await memo(alice());
		const a = await attachment(alice(), "x.txt", { memo: m });
		await api.request("DELETE", `/${a.name}`, { as: alice() });
		expect(await linked(alice(), m)).toEqual([]);
	});
});
