import type { Session } from "../support/users.js";
import type { Answer, Memo } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

/**
 * An instance ADMIN's writes never reveal a memo the ADMIN cannot read (contract 3.1): UpdateMemo,
 * SetMemoAttachments, SetMemoRelations and the share-link operations answer as a read would
 * (1.10); DeleteMemo stays allowed and answers nothing.
 */

const { api, admin, users: [alice] } = usePopulatedApp(1);

const SECRET = "alice's secret words";

async function ok<T>(res: Promise<Answer<T>>): Promise<T> {
	const answer = await res;
	if (answer.status !== 200) throw new Error(`answered ${answer.status}: ${answer.text}`);
	return answer.body;
}

let spaces = 0;
/** A memo of Alice's that the ADMIN cannot read, one per visibility rule that hides it. */
async function hiddenMemo(kind: "PRIVATE" | "SPACE" | "ARCHIVED"): Promise<Memo> {
	if (kind === "SPACE") {
		spaces += 1;
		const space = await ok(api.request<{ name: string }>("POST", "/spaces", { as: alice(), query: { spaceId: `hidden-${spaces}` }, body: { displayName: "Alice's" } }));
		return ok(api.create(alice(), { content: SECRET, visibility: "SPACE", space: space.name }));
	}
	const memo = await ok(api.create(alice(), { content: SECRET, visibility: kind === "ARCHIVED" ? "PUBLIC" : "PRIVATE" }));
	if (kind === "ARCHIVED") await ok(api.update(alice(), memo.name, "state", { state: "ARCHIVED" }));
	return memo;
}

/** The read's answer for the ADMIN: archived memos are NOT_FOUND, others PERMISSION_DENIED. */
const readAnswer = { PRIVATE: { status: 403, code: 7 }, SPACE: { status: 403, code: 7 }, ARCHIVED: { status: 404, code: 5 } } as const;

/** Each write of 3.1 by `as` on `memo`; `share` is an existing share link of the memo. */
function writes(as: Session, memo: Memo, share: string): [string, () => Promise<Answer<unknown>>][] {
	return [
		["UpdateMemo pinned", () => api.update(as, memo.name, "pinned", { pinned: true })],
		["UpdateMemo content", () => api.update(as, memo.name, "content", { content: "overwritten" })],
		["UpdateMemo state", () => api.update(as, memo.name, "state", { state: "NORMAL" })],
		["SetMemoAttachments", () => api.request("PATCH", `/${memo.name}/attachments`, { as, body: { attachments: [] } })],
		["SetMemoRelations", () => api.request("PATCH", `/${memo.name}/relations`, { as, body: { relations: [] } })],
		["CreateMemoShare", () => api.request("POST", `/${memo.name}/shares`, { as, body: {} })],
		["ListMemoShares", () => api.request("GET", `/${memo.name}/shares`, { as })],
		["DeleteMemoShare", () => api.request("DELETE", `/${share}`, { as })]
	];
}

describe("an instance ADMIN's writes on a memo the ADMIN cannot read (contract 3.1)", () => {
	test.each(["PRIVATE", "SPACE", "ARCHIVED"] as const)("a %s memo: every write answers as the read does, changes nothing, reveals nothing", async kind => {
		const memo = await hiddenMemo(kind);
		const share = kind === "ARCHIVED" ? `${memo.name}/shares/none` : (await ok(api.request<{ name: string }>("POST", `/${memo.name}/shares`, { as: alice(), body: {} }))).name;
		const before = await ok(api.get(alice(), memo.name));
		const read = await api.get(admin(), memo.name);
		expect({ status: read.status, code: (read.body as { code?: number }).code }).toEqual(readAnswer[kind]);
		for (const [name, write] of writes(admin(), memo, share)) {
			const res = await write();
			expect({ name, status: res.status, code: (res.body as { code?: number } | undefined)?.code }).toEqual({ name, ...readAnswer[kind] });
			expect({ name, leaked: res.text.includes(SECRET) || res.text.includes("shares/") }).toEqual({ name, leaked: false });
		}
		expect(await ok(api.get(alice(), memo.name))).toEqual(before);
		if (kind !== "ARCHIVED") {
			const shares = await ok(api.request<{ memoShares: { name: string }[] }>("GET", `/${memo.name}/shares`, { as: alice() }));
			expect(shares.memoShares.map(s => s.name)).toEqual([share]);
		}
	});

	test.each(["PRIVATE", "SPACE", "ARCHIVED"] as const)("a %s memo: DeleteMemo stays allowed and answers an empty body", async kind => {
		const memo = await hiddenMemo(kind);
		const res = await api.remove(admin(), memo.name);
		expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: "" });
		expect((await api.get(alice(), memo.name)).status).toBe(404);
	});

	test("on a memo the ADMIN can read (PROTECTED), the ADMIN updates it and manages its share links", async () => {
		const memo = await ok(api.create(alice(), { content: "for everyone signed in", visibility: "PROTECTED" }));
		expect(await ok(api.update(admin(), memo.name, "pinned", { pinned: true }))).toMatchObject({ pinned: true, creator: alice().user.name });
		expect((await api.request("PATCH", `/${memo.name}/attachments`, { as: admin(), body: { attachments: [] } })).status).toBe(200);
		expect((await api.request("PATCH", `/${memo.name}/relations`, { as: admin(), body: { relations: [] } })).status).toBe(200);
		const share = await ok(api.request<{ name: string }>("POST", `/${memo.name}/shares`, { as: admin(), body: {} }));
		expect(await ok(api.request("GET", `/${memo.name}/shares`, { as: admin() }))).toEqual({ memoShares: [expect.objectContaining({ name: share.name })] });
		expect((await api.request("DELETE", `/${share.name}`, { as: admin() })).status).toBe(200);
	});
});
