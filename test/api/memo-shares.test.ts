import type { Session } from "../support/users.js";
import type { Memo } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

const { app, api, admin, users: [alice, bob] } = usePopulatedApp(2);

type Share = { name: string; createTime: string; expireTime?: string };

async function created(body: Record<string, unknown>, as: Session = alice()): Promise<Memo> {
	const res = await api.create(as, body);
	if (res.status !== 200) throw new Error(`CreateMemo answered ${res.status}: ${res.text}`);
	return res.body;
}

function share(as: Session | null, memo: string, body: unknown = {}) {
	return api.request<Share>("POST", `/${memo}/shares`, { as, body });
}

async function shared(memo: string, body: unknown = {}, as: Session = alice()): Promise<Share> {
	const res = await share(as, memo, body);
	if (res.status !== 200) throw new Error(`CreateMemoShare answered ${res.status}: ${res.text}`);
	return res.body;
}

const tokenOf = (s: Share) => s.name.split("/")[3];

/** GetSharedMemo with any headers (no Authorization by default). */
async function getShared(token: string, headers: Record<string, string> = {}) {
	const res = await fetch(`${app().baseUrl}/api/v1/shares/${encodeURIComponent(token)}/memo`, { headers });
	const text = await res.text();
	return { status: res.status, body: (text === "" ? undefined : JSON.parse(text)) as Memo & { code?: number } };
}

function expectError(res: { status: number; body: unknown }, status: number, code: number): void {
	expect({ status: res.status, code: (res.body as { code?: number } | undefined)?.code }).toEqual({ status, code });
}

const TOKEN = /^[23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz]{22}$/;

describe("CreateMemoShare, ListMemoShares, DeleteMemoShare (contract 7.11)", () => {
	test("creates tokens of 22 base57 characters, lists newest first, revokes", async () => {
		const memo = await created({ content: "share me", visibility: "PROTECTED" });
		const forever = await shared(memo.name);
		expect(forever.name.startsWith(`${memo.name}/shares/`)).toBe(true);
		expect(tokenOf(forever)).toMatch(TOKEN);
		expect(forever).not.toHaveProperty("expireTime");
		const expireTime = new Date(Date.now() + 86_400_000).toISOString();
		const expiring = await shared(memo.name, { expireTime: expireTime.replace("Z", "+00:00") }, admin());
		expect(expiring.expireTime).toBe(expireTime);
		expect(tokenOf(expiring)).not.toBe(tokenOf(forever));
		const list = await api.request<{ memoShares: Share[] }>("GET", `/${memo.name}/shares`, { as: alice() });
		expect(list.body).toEqual({ memoShares: [expiring, forever] });
		const del = await api.request("DELETE", `/${forever.name}`, { as: alice() });
		expect(del).toMatchObject({ status: 200, text: "" });
		expectError(await getShared(tokenOf(forever)), 404, 5);
		expectError(await api.request("DELETE", `/${forever.name}`, { as: alice() }), 404, 5);
		const other = await created({ content: "other" });
		expectError(await api.request("DELETE", `/${other.name}/shares/${tokenOf(expiring)}`, { as: alice() }), 404, 5);
		expect((await api.request("DELETE", `/${expiring.name}`, { as: admin() })).status).toBe(200);
	});

	test("memo creator or instance admin only: anonymous 401, others 403", async () => {
		const memo = await created({ content: "mine", visibility: "PUBLIC" });
		const link = await shared(memo.name);
		expectError(await share(null, memo.name), 401, 16);
		expectError(await share(bob(), memo.name), 403, 7);
		expectError(await api.request("GET", `/${memo.name}/shares`, { as: bob() }), 403, 7);
		expectError(await api.request("GET", `/${memo.name}/shares`, { as: null }), 401, 16);
		expectError(await api.request("DELETE", `/${link.name}`, { as: bob() }), 403, 7);
		expectError(await share(alice(), "memos/nope"), 404, 5);
	});

	test("expireTime in the past, now or not a time is INVALID_ARGUMENT; archived memos FAILED_PRECONDITION", async () => {
		const memo = await created({ content: "m" });
		for (const body of [{ expireTime: "2020-01-01T00:00:00Z" }, { expireTime: "tomorrow" }, { expireTime: 5 }, { expireTime: "2030-02-30T00:00:00Z" }, "[]"]) {
			expectError(await share(alice(), memo.name, body), 400, 3);
		}
		expect((await api.request<{ memoShares: Share[] }>("GET", `/${memo.name}/shares`, { as: alice() })).body.memoShares).toEqual([]);
		expect((await api.update(alice(), memo.name, "state", { state: "ARCHIVED" })).status).toBe(200);
		expectError(await share(alice(), memo.name), 400, 9);
	});
});

describe("GetSharedMemo (contract 7.11)", () => {
	test("works without authentication on a private instance and ignores a bad Authorization header", async () => {
		const parent = await created({ content: "parent", visibility: "PUBLIC" });
		const memo = (await api.request<Memo>("POST", `/${parent.name}/comments`, { as: alice(), body: { content: "private comment" } })).body;
		const target = await created({ content: "target" });
		expect((await api.request("PATCH", `/${memo.name}/relations`, { as: alice(), body: { relations: [{ relatedMemo: { name: target.name } }] } })).status).toBe(200);
		const reaction = (await api.request("POST", `/${memo.name}/reactions`, { as: alice(), body: { reaction: { reactionType: "👍" } } })).body;
		const link = await shared(memo.name);
		expectError(await api.get(null, memo.name), 401, 16);
		const res = await getShared(tokenOf(link));
		expect(res.status).toBe(200);
		const full = (await api.get(alice(), memo.name)).body;
		const { parent: _parent, relations: _relations, ...rest } = full;
		expect(res.body).toEqual({ ...rest, relations: [] });
		expect(res.body.reactions).toEqual([reaction]);
		expect((await getShared(tokenOf(link), { Authorization: "Bearer not-a-token" })).status).toBe(200);
	});

	test("unknown, revoked and expired tokens, archived and deleted memos are NOT_FOUND", async () => {
		expectError(await getShared("nope"), 404, 5);
		expectError(await getShared("x".repeat(300)), 404, 5);
		const archived = await created({ content: "a" });
		const archivedLink = await shared(archived.name);
		expect((await api.update(alice(), archived.name, "state", { state: "ARCHIVED" })).status).toBe(200);
		expectError(await getShared(tokenOf(archivedLink)), 404, 5);
		expect((await api.update(alice(), archived.name, "state", { state: "NORMAL" })).status).toBe(200);
		expect((await getShared(tokenOf(archivedLink))).status).toBe(200);
		const deleted = await created({ content: "d" });
		const deletedLink = await shared(deleted.name);
		expect((await api.remove(alice(), deleted.name)).status).toBe(200);
		expectError(await getShared(tokenOf(deletedLink)), 404, 5);

		const expiring = await created({ content: "soon" });
		const soon = await shared(expiring.name, { expireTime: new Date(Date.now() + 3_600_000).toISOString() });
		expect((await getShared(tokenOf(soon))).status).toBe(200);
		// The gateway stamps each request with Date.now() of this process (the embedded app): moved past the expiry, not waited for.
		const realNow = Date.now;
		try {
			Date.now = () => Date.parse(soon.expireTime as string);
			expectError(await getShared(tokenOf(soon)), 404, 5);
		} finally {
			Date.now = realNow;
		}
		expect((await getShared(tokenOf(soon))).status).toBe(200);
		expect((await api.request<{ memoShares: Share[] }>("GET", `/${expiring.name}/shares`, { as: alice() })).body.memoShares).toEqual([soon]);
	});

	test("a purged memo takes its share links and reactions along", async () => {
		const memo = await created({ content: "purge" });
		const link = await shared(memo.name);
		expect((await api.remove(alice(), memo.name, "true")).status).toBe(200);
		expectError(await getShared(tokenOf(link)), 404, 5);
	});
});
