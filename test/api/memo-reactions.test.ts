import type { Session } from "../support/users.js";
import type { Memo } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

const { api, admin, users: [alice, bob] } = usePopulatedApp(2);

type Reaction = { name: string; creator: string; reactionType: string; createTime: string };

async function created(body: Record<string, unknown>, as: Session = alice()): Promise<Memo> {
	const res = await api.create(as, body);
	if (res.status !== 200) throw new Error(`CreateMemo answered ${res.status}: ${res.text}`);
	return res.body;
}

function react(as: Session | null, memo: string, body: unknown) {
	return api.request<Reaction>("POST", `/${memo}/reactions`, { as, body });
}

function listReactions(as: Session | null, memo: string, query: Record<string, string> = {}) {
	return api.request<{ reactions: Reaction[]; nextPageToken: string }>("GET", `/${memo}/reactions`, { as, query });
}

function expectError(res: { status: number; body: unknown }, status: number, code: number): void {
	expect({ status: res.status, code: (res.body as { code?: number } | undefined)?.code }).toEqual({ status, code });
}

const REACTION_NAME = /^memos\/[^/]+\/reactions\/[23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz]{22}$/;

describe("UpsertMemoReaction (contract 7.10)", () => {
	test("creates, replaces the type keeping name and createTime, and is idempotent", async () => {
		const memo = await created({ content: "react to me", visibility: "PROTECTED" });
		const first = await react(bob(), memo.name, { reaction: { reactionType: "👍" } });
		expect(first.status).toBe(200);
		expect(first.body).toMatchObject({ creator: "users/user2", reactionType: "👍" });
		expect(first.body.name).toMatch(REACTION_NAME);
		expect(first.body.name.startsWith(`${memo.name}/reactions/`)).toBe(true);
		const changed = await react(bob(), memo.name, { reaction: { reaction_type: "🎉" } });
		expect(changed.body).toEqual({ ...first.body, reactionType: "🎉" });
		expect((await react(bob(), memo.name, { reaction: { reactionType: "🎉" } })).body).toEqual(changed.body);
		const list = await listReactions(alice(), memo.name);
		expect(list.body).toEqual({ reactions: [changed.body], nextPageToken: "" });
		expect((await api.get(alice(), memo.name)).body.reactions).toEqual([changed.body]);
	});

	test("concurrent upserts by one user leave exactly one reaction", async () => {
		const memo = await created({ content: "race", visibility: "PROTECTED" });
		const types = ["a", "b", "c", "d", "e", "f", "g", "h"];
		const answers = await Promise.all(types.map(type => react(bob(), memo.name, { reaction: { reactionType: type } })));
		expect(answers.map(answer => answer.status)).toEqual(types.map(() => 200));
		expect(new Set(answers.map(answer => answer.body.name)).size).toBe(1);
		const list = (await listReactions(bob(), memo.name)).body.reactions;
		expect(list).toHaveLength(1);
		expect(types).toContain(list[0].reactionType);
	});

	test("reaction types of 1-64 bytes; 0 or 65+ bytes and wrong types are INVALID_ARGUMENT", async () => {
		const memo = await created({ content: "types" });
		expect((await react(alice(), memo.name, { reaction: { reactionType: "x".repeat(64) } })).status).toBe(200);
		expect((await react(alice(), memo.name, { reaction: { reactionType: "é".repeat(32) } })).status).toBe(200);
		for (const body of [
			{ reaction: { reactionType: "" } },
			{ reaction: {} },
			{},
			{ reaction: { reactionType: "x".repeat(65) } },
			{ reaction: { reactionType: "é".repeat(33) } },
			{ reaction: { reactionType: 7 } },
			{ reaction: "👍" },
			{ reaction: { reactionType: "\ud800" } }
		]) {
			expectError(await react(alice(), memo.name, body), 400, 3);
		}
	});

	test("the caller must be signed in and able to read the memo", async () => {
		const secret = await created({ content: "secret" });
		expectError(await react(bob(), secret.name, { reaction: { reactionType: "👍" } }), 403, 7);
		expectError(await react(null, secret.name, { reaction: { reactionType: "👍" } }), 401, 16);
		expectError(await react(bob(), "memos/nope", { reaction: { reactionType: "👍" } }), 404, 5);
		expectError(await listReactions(bob(), secret.name), 403, 7);
	});
});

describe("ListMemoReactions and DeleteMemoReaction (contract 7.10)", () => {
	test("oldest first with pages; memo responses carry them", async () => {
		const memo = await created({ content: "popular", visibility: "PUBLIC" });
		const mine = (await react(alice(), memo.name, { reaction: { reactionType: "1" } })).body;
		const his = (await react(bob(), memo.name, { reaction: { reactionType: "2" } })).body;
		const admins = (await react(admin(), memo.name, { reaction: { reactionType: "3" } })).body;
		const first = await listReactions(bob(), memo.name, { pageSize: "2" });
		expect(first.body.reactions).toEqual([mine, his]);
		const second = await listReactions(bob(), memo.name, { pageSize: "2", pageToken: first.body.nextPageToken });
		expect(second.body).toEqual({ reactions: [admins], nextPageToken: "" });
		expectError(await listReactions(bob(), memo.name, { pageToken: "nope" }), 400, 3);
		const listed = (await api.list(bob(), { pageSize: "1000" })).body.memos.find(m => m.name === memo.name);
		expect(listed?.reactions).toEqual([mine, his, admins]);
	});

	test("deleted by its creator or an admin; others 403; missing or another memo's 404", async () => {
		const memo = await created({ content: "m", visibility: "PUBLIC" });
		const other = await created({ content: "o", visibility: "PUBLIC" });
		const his = (await react(bob(), memo.name, { reaction: { reactionType: "👀" } })).body;
		const del = (as: Session | null, name: string) => api.request("DELETE", `/${name}`, { as });
		expectError(await del(alice(), his.name), 403, 7);
		expectError(await del(null, his.name), 401, 16);
		expectError(await del(bob(), `${other.name}/reactions/${his.name.split("/")[3]}`), 404, 5);
		expectError(await del(bob(), `${memo.name}/reactions/nope`), 404, 5);
		const res = await del(bob(), his.name);
		expect(res).toMatchObject({ status: 200, text: "" });
		expectError(await del(bob(), his.name), 404, 5);
		const again = (await react(bob(), memo.name, { reaction: { reactionType: "👀" } })).body;
		expect(again.name).not.toBe(his.name);
		expect((await del(admin(), again.name)).status).toBe(200);
		expect((await listReactions(alice(), memo.name)).body.reactions).toEqual([]);
	});
});
