import { signIn, signUp, type Session } from "../support/users.js";
import { usePopulatedApp } from "../support/populated-app.js";

/** Share links and attachment bytes (contract 7.11, 8.5), and DeleteUser's clean-up of memo data (2.4). */

const { app, api, admin, users: [alice, bob] } = usePopulatedApp(2);

async function ok<T = Record<string, unknown>>(res: Promise<{ status: number; body: T; text: string }>): Promise<T> {
	const answer = await res;
	if (answer.status !== 200) throw new Error(`answered ${answer.status}: ${answer.text}`);
	return answer.body;
}

async function memoWithFile(as: Session): Promise<{ memo: string; attachment: string }> {
	const memo = (await ok(api.create(as, { content: "with a file" }))).name;
	const attachment = (await ok(api.request<{ name: string }>("POST", "/attachments", { as, body: { filename: "note.txt", content: "aGVsbG8=" } }))).name;
	await ok(api.request("PATCH", `/${memo}/attachments`, { as, body: { attachments: [{ name: attachment }] } }));
	return { memo, attachment };
}

async function shareToken(as: Session, memo: string): Promise<string> {
	const share = await ok(api.request<{ name: string }>("POST", `/${memo}/shares`, { as, body: {} }));
	return share.name.split("/")[3];
}

async function file(attachment: string, token: string) {
	const res = await fetch(`${app().baseUrl}/file/${attachment}?share_token=${encodeURIComponent(token)}`);
	return { status: res.status, text: await res.text(), cacheControl: res.headers.get("cache-control") };
}

describe("share_token on the file route (contract 8.5)", () => {
	test("a live share of the attachment's memo serves its bytes to anyone; other tokens are NOT_FOUND", async () => {
		const { memo, attachment } = await memoWithFile(alice());
		const token = await shareToken(alice(), memo);
		expect(await file(attachment, token)).toEqual({ status: 200, text: "hello", cacheControl: "private, no-store" });
		const shared = await ok(api.request<{ attachments: { name: string }[] }>("GET", `/shares/${token}/memo`, {}));
		expect(shared.attachments.map(a => a.name)).toEqual([attachment]);

		const other = await memoWithFile(alice());
		const otherToken = await shareToken(alice(), other.memo);
		expect((await file(attachment, otherToken)).status).toBe(404);
		await ok(api.request("DELETE", `/${memo}/shares/${token}`, { as: alice() }));
		expect((await file(attachment, token)).status).toBe(404);
	});

	test("the share of an archived memo no longer serves its files", async () => {
		const { memo, attachment } = await memoWithFile(alice());
		const token = await shareToken(alice(), memo);
		await ok(api.update(alice(), memo, "state", { state: "ARCHIVED" }));
		expect((await file(attachment, token)).status).toBe(404);
	});
});

describe("DeleteUser and memo data (contract 2.4)", () => {
	test("removes the user's memos, reactions and share links; others' comments on them survive as ordinary memos", async () => {
		await signUp(app().baseUrl, "leaver", undefined, { accessToken: admin().accessToken });
		const leaver = await signIn(app().baseUrl, "leaver");
		const own = await ok(api.create(leaver, { content: "leaver's memo", visibility: "PUBLIC" }));
		const token = await shareToken(leaver, own.name);
		const comment = await ok(api.request<{ name: string }>("POST", `/${own.name}/comments`, { as: bob(), body: { content: "bob's comment", visibility: "PUBLIC" } }));
		const target = await ok(api.create(alice(), { content: "alice's", visibility: "PUBLIC" }));
		await ok(api.request("POST", `/${target.name}/reactions`, { as: leaver, body: { reaction: { reactionType: "👋" } } }));
		await ok(api.request("PATCH", `/${own.name}/relations`, { as: leaver, body: { relations: [{ relatedMemo: { name: target.name } }] } }));

		const res = await api.request("DELETE", "/users/leaver", { as: admin() });
		expect(res.status).toBe(200);
		expect((await api.get(alice(), own.name)).status).toBe(404);
		expect((await fetch(`${app().baseUrl}/api/v1/shares/${token}/memo`)).status).toBe(404);
		const survivor = await api.get(bob(), comment.name);
		expect(survivor.status).toBe(200);
		expect(survivor.body).not.toHaveProperty("parent");
		const after = (await api.get(alice(), target.name)).body;
		expect(after.reactions).toEqual([]);
		expect(after.relations).toEqual([]);
	});
});
