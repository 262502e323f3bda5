import type { Session } from "../support/users.js";
import type { Answer, Memo } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

/** SPACE rules of the memo service (contract 1.10, 3.4, 6.2, 7.3, 7.5, 7.6, 8.1, 9). */

const { api, admin, users: [alice, bob, carol, dave] } = usePopulatedApp(4);

function expectError(res: Answer<unknown>, status: number, code: number): void {
	expect({ status: res.status, code: (res.body as { code?: number } | undefined)?.code }).toEqual({ status, code });
}

async function ok<T>(res: Promise<Answer<T>>): Promise<T> {
	const answer = await res;
	if (answer.status !== 200) throw new Error(`answered ${answer.status}: ${answer.text}`);
	return answer.body;
}

let spaces = 0;
/** A space of `owner` with `members` (usernames) as MEMBERs. */
async function space(owner: Session, ...members: string[]): Promise<string> {
	spaces += 1;
	const created = await ok(api.request<{ name: string }>("POST", "/spaces", { as: owner, query: { spaceId: `s${spaces}` }, body: { displayName: `Space ${spaces}` } }));
	for (const username of members) await ok(api.request("POST", `/${created.name}/members`, { as: owner, body: { user: `users/${username}` } }));
	return created.name;
}

describe("CreateMemo with a space (7.3)", () => {
	test("members place memos; the memo carries its space; SPACE needs a space", async () => {
		const team = await space(alice(), "user2");
		const memo = await ok(api.create(bob(), { content: "in the team", visibility: "SPACE", space: team }));
		expect(memo).toMatchObject({ space: team, visibility: "SPACE", creator: "users/user2" });
		expect(await ok(api.get(alice(), memo.name))).toMatchObject({ space: team });
		expectError(await api.create(bob(), { content: "x", visibility: "SPACE", space: null }), 400, 3);
		expect(await ok(api.create(bob(), { content: "plain", space: "" }))).toMatchObject({ space: null });
	});

	test("non-members, instance ADMINs included, get NOT_FOUND; malformed names INVALID_ARGUMENT", async () => {
		const team = await space(alice());
		expectError(await api.create(carol(), { content: "x", space: team }), 404, 5);
		expectError(await api.create(admin(), { content: "x", visibility: "SPACE", space: team }), 404, 5);
		expectError(await api.create(alice(), { content: "x", space: "teams/x" }), 400, 3);
		expectError(await api.create(alice(), { content: "x", space: 5 }), 400, 3);
	});
});

describe("UpdateMemo moving between spaces (7.5)", () => {
	test("to a space of the caller and creator; attachments follow; SPACE memos cannot leave without a visibility change", async () => {
		const from = await space(alice(), "user2");
		const to = await space(alice());
		const memo = await ok(api.create(alice(), { content: "moving", visibility: "SPACE", space: from }));
		const file = await ok(api.request<{ name: string }>("POST", "/attachments", { as: alice(), body: { filename: "f.txt", content: "aGk=", memo: memo.name } }));
		expect(await ok(api.update(alice(), memo.name, "space", { space: to }))).toMatchObject({ space: to, visibility: "SPACE" });
		expect(await ok(api.request("GET", `/${file.name}`, { as: alice() }))).toMatchObject({ space: to, memo: memo.name });
		expectError(await api.get(bob(), memo.name), 403, 7);
		expectError(await api.update(alice(), memo.name, "space", { space: null }), 400, 3);
		expectError(await api.update(alice(), memo.name, "space", { space: "" }), 400, 3);
		expect(await ok(api.update(alice(), memo.name, "space,visibility", { space: null, visibility: "PROTECTED" }))).toMatchObject({ space: null, visibility: "PROTECTED" });
		expect(await ok(api.request("GET", `/${file.name}`, { as: alice() }))).toMatchObject({ space: null });
	});

	test("a destination the caller is not in: NOT_FOUND, except for instance ADMINs; the creator not in it: FAILED_PRECONDITION", async () => {
		const mine = await space(alice(), "user2");
		const carols = await space(carol(), "user1");
		const elsewhere = await space(carol());
		const memo = await ok(api.create(alice(), { content: "m", visibility: "PUBLIC", space: mine }));
		expectError(await api.update(alice(), memo.name, "space", { space: elsewhere }), 404, 5);
		expectError(await api.update(alice(), memo.name, "space", { space: "spaces/nowhere" }), 404, 5);
		expectError(await api.update(admin(), memo.name, "space", { space: "spaces/nowhere" }), 404, 5);
		expectError(await api.update(admin(), memo.name, "space", { space: elsewhere }), 400, 9);
		expect(await ok(api.update(admin(), memo.name, "space", { space: carols }))).toMatchObject({ space: carols });
		// Only the creator or an instance ADMIN moves a memo, whatever the space.
		expectError(await api.update(bob(), memo.name, "space", { space: mine }), 403, 7);
		// An admin who is a member of the destination still needs the creator to be one.
		const adminSpace = await space(admin());
		expectError(await api.update(admin(), memo.name, "space", { space: adminSpace }), 400, 9);
	});
});

describe("DeleteMemo by a space ADMIN (3.4, 7.6)", () => {
	test("space ADMINs delete any memo placed in their space; MEMBERs do not; outside the space nothing changes", async () => {
		const team = await space(alice(), "user2", "user3");
		const bobs = await ok(api.create(bob(), { content: "bob's", visibility: "PRIVATE", space: team }));
		const bobsOutside = await ok(api.create(bob(), { content: "outside", visibility: "PUBLIC" }));
		expectError(await api.remove(carol(), bobs.name), 403, 7);
		expectError(await api.remove(alice(), bobsOutside.name), 403, 7);
		expect((await api.remove(alice(), bobs.name)).status).toBe(200);
		expectError(await api.get(bob(), bobs.name), 404, 5);
		const another = await ok(api.create(bob(), { content: "again", visibility: "SPACE", space: team }));
		expect((await api.remove(alice(), another.name, "true")).status).toBe(200);
	});
});

describe("memberships take effect on the next request (3.4, 9)", () => {
	test("a removed member loses others' SPACE memos at once but keeps their own; a re-added one regains them", async () => {
		const team = await space(alice(), "user2");
		const alices = await ok(api.create(alice(), { content: "team only", visibility: "SPACE", space: team }));
		const bobs = await ok(api.create(bob(), { content: "bob in team", visibility: "SPACE", space: team }));
		// Warm the membership cache with a read.
		expect((await api.get(bob(), alices.name)).status).toBe(200);
		expect((await api.request("DELETE", `/${team}/members/user2`, { as: alice() })).status).toBe(200);
		expectError(await api.get(bob(), alices.name), 403, 7);
		expect((await ok(api.list(bob(), { filter: `space == "${team}"` }))).memos.map(m => m.name)).toEqual([bobs.name]);
		expect(await ok(api.get(bob(), bobs.name))).toMatchObject({ space: team });
		await ok(api.request("POST", `/${team}/members`, { as: alice(), body: { user: "users/user2" } }));
		expect((await api.get(bob(), alices.name)).status).toBe(200);
	});

	test("a member who leaves loses access on the next request", async () => {
		const team = await space(alice(), "user4");
		const memo = await ok(api.create(alice(), { content: "x", visibility: "SPACE", space: team }));
		expect((await api.get(dave(), memo.name)).status).toBe(200);
		expect((await api.request("DELETE", `/${team}/members/user4`, { as: dave() })).status).toBe(200);
		expectError(await api.get(dave(), memo.name), 403, 7);
	});
});

describe("the space filter of ListMemos (6.2)", () => {
	test('space == "spaces/…", space == null and space != null', async () => {
		const team = await space(carol());
		const inside = await ok(api.create(carol(), { content: "inside #sf", visibility: "SPACE", space: team }));
		const outside = await ok(api.create(carol(), { content: "outside #sf" }));
		const names = async (filter: string) => (await ok(api.list(carol(), { filter: `"sf" in tags && (${filter})` }))).memos.map((m: Memo) => m.name);
		expect(await names(`space == "${team}"`)).toEqual([inside.name]);
		expect(await names(`"${team}" == space`)).toEqual([inside.name]);
		expect(await names("space == null")).toEqual([outside.name]);
		expect(await names("space != null")).toEqual([inside.name]);
		expectError(await api.list(carol(), { filter: `space != "${team}"` }), 400, 3);
		expectError(await api.list(carol(), { filter: 'space == "teams/x"' }), 400, 3);
	});
});

describe("ListAttachments widened to a member's space (8.1)", () => {
	test("a member sees others' attachments of readable memos in the space; not of PRIVATE or archived ones; non-members only their own", async () => {
		const team = await space(alice(), "user2");
		const attach = async (visibility: string) => {
			const memo = await ok(api.create(alice(), { content: visibility, visibility, space: team }));
			const file = await ok(api.request<{ name: string }>("POST", "/attachments", { as: alice(), body: { filename: `${visibility}.txt`, content: "aGk=", memo: memo.name } }));
			return { memo: memo.name, file: file.name };
		};
		const shared = await attach("SPACE");
		const open = await attach("PROTECTED");
		const hidden = await attach("PRIVATE");
		const archived = await attach("SPACE");
		await ok(api.update(alice(), archived.memo, "state", { state: "ARCHIVED" }));
		const bobsOwn = await ok(api.request<{ name: string }>("POST", "/attachments", { as: bob(), body: { filename: "own.txt", content: "aGk=" } }));
		const list = async (as: Session, filter: string) =>
			(await ok(api.request<{ attachments: { name: string }[] }>("GET", "/attachments", { as, query: { filter } }))).attachments.map(a => a.name).sort();
		expect(await list(bob(), `space == "${team}"`)).toEqual([shared.file, open.file].sort());
		expect(await list(bob(), `space == "${team}" && filename.startsWith("SPACE")`)).toEqual([shared.file]);
		expect(await list(bob(), "space == null")).toEqual([bobsOwn.name]);
		expect(await list(carol(), `space == "${team}"`)).toEqual([]);
		expect(await list(alice(), `space == "${team}"`)).toEqual([shared.file, open.file, hidden.file, archived.file].sort());
		// Visibility changes follow: the PRIVATE memo made SPACE shows, the shared one made PRIVATE hides.
		await ok(api.update(alice(), hidden.memo, "visibility", { visibility: "SPACE" }));
		await ok(api.update(alice(), shared.memo, "visibility", { visibility: "PRIVATE" }));
		expect(await list(bob(), `space == "${team}"`)).toEqual([open.file, hidden.file].sort());
		// Removed from the space: nothing more than their own.
		expect((await api.request("DELETE", `/${team}/members/user2`, { as: alice() })).status).toBe(200);
		expect(await list(bob(), `space == "${team}"`)).toEqual([]);
	});
});
