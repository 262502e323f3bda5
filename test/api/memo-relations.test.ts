import type { Session } from "../support/users.js";
import type { Memo } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

const { api, admin, users: [alice, bob] } = usePopulatedApp(2);

async function created(body: Record<string, unknown>, as: Session = alice()): Promise<Memo> {
	const res = await api.create(as, body);
	if (res.status !== 200) throw new Error(`CreateMemo answered ${res.status}: ${res.text}`);
	return res.body;
}

const ref = (name: string, type?: unknown) => ({ relatedMemo: { name }, ...(type === undefined ? {} : { type }) });

function setRelations(as: Session | null, memo: string, relations: unknown) {
	return api.request("PATCH", `/${memo}/relations`, { as, body: { relations } });
}

type Relation = { memo: { name: string; snippet: string }; relatedMemo: { name: string; snippet: string }; type: string };

function listRelations(as: Session | null, memo: string, query: Record<string, string> = {}) {
	return api.request<{ relations: Relation[]; nextPageToken: string }>("GET", `/${memo}/relations`, { as, query });
}

const pairs = (relations: Relation[]) => relations.map(r => `${r.memo.name}>${r.relatedMemo.name}:${r.type}`);

function expectError(res: { status: number; body: unknown }, status: number, code: number): void {
	expect({ status: res.status, code: (res.body as { code?: number } | undefined)?.code }).toEqual({ status, code });
}

describe("SetMemoRelations (contract 7.8)", () => {
	test("replaces the outgoing references: empty body, duplicates collapse, idempotent, updateTime set", async () => {
		const memo = await created({ content: "source" });
		const [p1, p2, p3] = [await created({ content: "one" }), await created({ content: "two" }), await created({ content: "three" })];
		// The embedded app shares this process's clock: once it has passed the memo's updateTime, the request's time is later.
		while (Date.now() <= Date.parse(memo.updateTime as string)) await new Promise(resolve => setImmediate(resolve));
		const sentAt = Date.now();
		const res = await setRelations(alice(), memo.name, [ref(p1.name), ref(p2.name, "REFERENCE"), ref(p1.name, "TYPE_UNSPECIFIED"), ref(p2.name, 1)]);
		expect(res).toMatchObject({ status: 200, text: "" });
		const after = (await api.get(alice(), memo.name)).body;
		expect(Date.parse(after.updateTime as string)).toBeGreaterThanOrEqual(sentAt);
		expect(pairs(after.relations as Relation[]).sort()).toEqual([`${memo.name}>${p1.name}:REFERENCE`, `${memo.name}>${p2.name}:REFERENCE`].sort());
		expect((after.relations as Relation[])[0]).toMatchObject({ memo: { snippet: "source" } });
		const again = await setRelations(alice(), memo.name, [ref(p1.name), ref(p2.name)]);
		expect(again.status).toBe(200);
		expect((await api.get(alice(), memo.name)).body.relations).toEqual(after.relations);
		// The target sees the incoming reference.
		expect(pairs((await api.get(alice(), p1.name)).body.relations as Relation[])).toEqual([`${memo.name}>${p1.name}:REFERENCE`]);
		expect((await setRelations(alice(), memo.name, [ref(p3.name)])).status).toBe(200);
		expect(pairs((await api.get(alice(), memo.name)).body.relations as Relation[])).toEqual([`${memo.name}>${p3.name}:REFERENCE`]);
		expect((await api.get(alice(), p1.name)).body.relations).toEqual([]);
		expect((await api.request("PATCH", `/${memo.name}/relations`, { as: alice(), body: {} })).status).toBe(200);
		expect((await api.get(alice(), memo.name)).body.relations).toEqual([]);
	});

	test("COMMENT, self, malformed and foreign names are INVALID_ARGUMENT and change nothing", async () => {
		const memo = await created({ content: "source" });
		const target = await created({ content: "target" });
		expect((await setRelations(alice(), memo.name, [ref(target.name)])).status).toBe(200);
		const before = (await api.get(alice(), memo.name)).body;
		for (const relations of [
			[ref(target.name, "COMMENT")],
			[ref(target.name), ref(memo.name)],
			[ref(target.name, 2)],
			[ref("notes/1")],
			[ref("memos/a/b")],
			[ref("memos/-x-")],
			[ref("attachments/a1")],
			[{ type: "REFERENCE" }],
			[{ relatedMemo: { name: 42 } }],
			[ref(target.name, "FRIEND")],
			[{ memo: { name: target.name }, relatedMemo: { name: memo.name } }],
			["memos/x"],
			"memos/x"
		]) {
			expectError(await setRelations(alice(), memo.name, relations), 400, 3);
		}
		expect((await api.get(alice(), memo.name)).body).toEqual(before);
		// `memo` naming the memo itself is accepted.
		expect((await setRelations(alice(), memo.name, [{ memo: { name: memo.name }, ...ref(target.name) }])).status).toBe(200);
	});

	test("related memos that are missing, deleted or unreadable are NOT_FOUND; creator or admin only", async () => {
		const memo = await created({ content: "source", visibility: "PROTECTED" });
		const theirs = await created({ content: "bob's private" }, bob());
		const deleted = await created({ content: "gone" });
		expect((await api.remove(alice(), deleted.name)).status).toBe(200);
		const archivedOfBob = await created({ content: "old", visibility: "PUBLIC" }, bob());
		expect((await api.update(bob(), archivedOfBob.name, "state", { state: "ARCHIVED" })).status).toBe(200);
		for (const name of ["memos/nope", theirs.name, deleted.name, archivedOfBob.name]) {
			expectError(await setRelations(alice(), memo.name, [ref(name)]), 404, 5);
		}
		const shared = await created({ content: "public", visibility: "PUBLIC" }, bob());
		expect((await setRelations(alice(), memo.name, [ref(shared.name)])).status).toBe(200);
		expectError(await setRelations(bob(), memo.name, []), 403, 7);
		expectError(await setRelations(null, memo.name, []), 401, 16);
		expectError(await setRelations(alice(), "memos/nope", []), 404, 5);
		// An admin may set them but still needs to read the related memos.
		expect((await setRelations(admin(), memo.name, [])).status).toBe(200);
		expectError(await setRelations(admin(), memo.name, [ref(theirs.name)]), 404, 5);
	});

	test("the comment relation is never touched by SetMemoRelations", async () => {
		const parent = await created({ content: "parent", visibility: "PUBLIC" });
		const child = (await api.request<Memo>("POST", `/${parent.name}/comments`, { as: alice(), body: { content: "child" } })).body;
		const other = await created({ content: "other" });
		expect((await setRelations(alice(), child.name, [ref(other.name)])).status).toBe(200);
		expect(pairs((await api.get(alice(), child.name)).body.relations as Relation[]).sort()).toEqual(
			[`${child.name}>${parent.name}:COMMENT`, `${child.name}>${other.name}:REFERENCE`].sort()
		);
		expect((await setRelations(alice(), child.name, [])).status).toBe(200);
		expect(pairs((await api.get(alice(), child.name)).body.relations as Relation[])).toEqual([`${child.name}>${parent.name}:COMMENT`]);
		expect((await api.get(alice(), child.name)).body.parent).toBe(parent.name);
	});
});

describe("relations on CreateMemo and UpdateMemo (contract 7.3, 7.5)", () => {
	test("CreateMemo applies them; bad ones fail the creation", async () => {
		const target = await created({ content: "target" });
		const memo = await created({ content: "new", relations: [ref(target.name)] });
		expect(pairs(memo.relations as Relation[])).toEqual([`${memo.name}>${target.name}:REFERENCE`]);
		expectError(await api.create(alice(), { content: "x", relations: [ref("memos/nope")] }, "never-made"), 404, 5);
		expectError(await api.create(alice(), { content: "x", relations: [ref(target.name, "COMMENT")] }, "never-made"), 400, 3);
		expectError(await api.create(alice(), { content: "x", relations: [ref("memos/self-ref")] }, "self-ref"), 400, 3);
		expectError(await api.get(alice(), "memos/never-made"), 404, 5);
	});

	test("UpdateMemo with the relations path replaces them", async () => {
		const [a, b] = [await created({ content: "a" }), await created({ content: "b" })];
		const memo = await created({ content: "m", relations: [ref(a.name)] });
		const res = await api.update(alice(), memo.name, "relations", { relations: [ref(b.name)] });
		expect(res.status).toBe(200);
		expect(pairs(res.body.relations as Relation[])).toEqual([`${memo.name}>${b.name}:REFERENCE`]);
		expectError(await api.update(alice(), memo.name, "relations", { relations: [ref(a.name, "COMMENT")] }), 400, 3);
		expectError(await api.update(alice(), memo.name, "relations,content", { content: "changed", relations: [ref("memos/nope")] }), 404, 5);
		expect((await api.get(alice(), memo.name)).body).toMatchObject({ content: "m" });
	});
});

describe("ListMemoRelations (contract 7.8)", () => {
	test("both directions and types, oldest first, skipping unreadable ends, paginated", async () => {
		const hub = await created({ content: "hub", visibility: "PUBLIC" });
		const out1 = await created({ content: "out1", visibility: "PUBLIC" });
		expect((await setRelations(alice(), hub.name, [ref(out1.name)])).status).toBe(200);
		const incoming = await created({ content: "incoming", visibility: "PROTECTED" }, bob());
		expect((await setRelations(bob(), incoming.name, [ref(hub.name)])).status).toBe(200);
		const hidden = await created({ content: "bob private", relations: [ref(hub.name)] }, bob());
		const child = (await api.request<Memo>("POST", `/${hub.name}/comments`, { as: bob(), body: { content: "child", visibility: "PUBLIC" } })).body;

		const all = await listRelations(alice(), hub.name);
		expect(all.status).toBe(200);
		expect(pairs(all.body.relations)).toEqual([`${hub.name}>${out1.name}:REFERENCE`, `${incoming.name}>${hub.name}:REFERENCE`, `${child.name}>${hub.name}:COMMENT`]);
		expect(all.body.nextPageToken).toBe("");
		const asBob = await listRelations(bob(), hub.name);
		expect(pairs(asBob.body.relations)).toContain(`${hidden.name}>${hub.name}:REFERENCE`);
		expect(asBob.body.relations).toHaveLength(4);

		const walked: string[] = [];
		let pageToken = "";
		for (let i = 0; i < 10; i++) {
			const page = await listRelations(alice(), hub.name, pageToken === "" ? { pageSize: "1" } : { pageSize: "1", pageToken });
			expect(page.status).toBe(200);
			expect(page.body.relations.length).toBe(1);
			walked.push(...pairs(page.body.relations));
			pageToken = page.body.nextPageToken;
			if (pageToken === "") break;
		}
		expect(walked).toEqual(pairs(all.body.relations));
		expectError(await listRelations(bob(), hub.name, { pageToken: (await listRelations(alice(), hub.name, { pageSize: "1" })).body.nextPageToken }), 400, 3);
		// The comment's own relation list holds its COMMENT relation.
		expect(pairs((await listRelations(alice(), child.name)).body.relations)).toEqual([`${child.name}>${hub.name}:COMMENT`]);
	});

	test("requires read access to the memo", async () => {
		const secret = await created({ content: "secret" });
		expectError(await listRelations(bob(), secret.name), 403, 7);
		expectError(await listRelations(null, secret.name), 401, 16);
		expectError(await listRelations(alice(), "memos/nope"), 404, 5);
	});

	test("deleting a memo removes every relation touching it, and never another memo", async () => {
		const a = await created({ content: "a" });
		const b = await created({ content: "b", relations: [ref(a.name)] });
		const c = await created({ content: "c" });
		expect((await setRelations(alice(), a.name, [ref(c.name)])).status).toBe(200);
		expect((await api.remove(alice(), a.name)).status).toBe(200);
		expect((await api.get(alice(), b.name)).body.relations).toEqual([]);
		expect((await api.get(alice(), c.name)).body.relations).toEqual([]);
		expect((await api.get(alice(), c.name)).status).toBe(200);
	});
});
