import type { Answer, MemoClient } from "./memos-client.js";
import type { Session } from "./users.js";

/** The body of a 200 answer; anything else throws with the answer's text. */
export async function ok<T>(res: Promise<Answer<T>>): Promise<T> {
	const answer = await res;
	if (answer.status !== 200) throw new Error(`answered ${answer.status}: ${answer.text}`);
	return answer.body;
}

/**
 * Two or more items in every list the API serves, for the tests of how lists read the store
 * (query-plans, query-shapes): `owner`'s memos of each visibility (two pinned), a space
 * (`spaceId`, with `member` in it) and a second one, and on one memo comments, reactions,
 * relations, share links and attachments; `member`'s own attachments; `owner`'s shortcuts, and
 * notifications (a comment of `member` on the memo, a memo of theirs mentioning `owner`).
 * Returns the space's and the memo's names. `owner` is user1, `member` user2.
 */
export async function seedEveryList(api: MemoClient, owner: Session, member: Session, spaceId: string): Promise<{ space: string; memo: string }> {
	const space = (await ok(api.request<{ name: string }>("POST", "/spaces", { as: owner, query: { spaceId }, body: { displayName: spaceId } }))).name;
	await ok(api.request("POST", `/${space}/members`, { as: owner, body: { user: "users/user2" } }));
	await ok(api.request("POST", "/spaces", { as: owner, query: { spaceId: `${spaceId}-two` }, body: { displayName: `${spaceId} two` } }));
	for (const visibility of ["PRIVATE", "PUBLIC", "PROTECTED", "SPACE", "PRIVATE", "PUBLIC", "PROTECTED"]) {
		const body = { content: `a ${visibility} memo #${spaceId} \`code\``, visibility, ...(visibility === "SPACE" ? { space } : {}) };
		const created = await ok(api.create(owner, body));
		if (visibility === "PROTECTED") await ok(api.update(owner, created.name, "pinned", { pinned: true }));
	}
	const memo = (await ok(api.create(owner, { content: "the memo with everything", visibility: "PUBLIC" }))).name;
	await ok(api.update(owner, memo, "pinned", { pinned: true }));
	for (const content of ["first comment", "second comment"]) await ok(api.request("POST", `/${memo}/comments`, { as: owner, body: { content } }));
	for (const [who, reactionType] of [[owner, "👍"], [member, "🎉"]] as const) await ok(api.request("POST", `/${memo}/reactions`, { as: who, body: { reaction: { reactionType } } }));
	const others = (await ok(api.list(owner, { pageSize: "2" }))).memos.map(m => m.name).filter(name => name !== memo);
	await ok(api.request("PATCH", `/${memo}/relations`, { as: owner, body: { relations: others.map(name => ({ relatedMemo: { name } })) } }));
	for (let i = 0; i < 2; i++) await ok(api.request("POST", `/${memo}/shares`, { as: owner, body: {} }));
	for (let i = 0; i < 2; i++) await ok(api.request("POST", "/attachments", { as: owner, body: { filename: `f${i}.txt`, content: "aGk=", memo } }));
	for (let i = 0; i < 2; i++) await ok(api.request("POST", "/attachments", { as: member, body: { filename: `b${i}.txt`, content: "aGk=" } }));
	for (let i = 0; i < 2; i++) await ok(api.request("POST", "/users/user1/shortcuts", { as: owner, body: { title: `s${i}`, filter: "pinned" } }));
	await ok(api.request("POST", `/${memo}/comments`, { as: member, body: { content: "a comment of the member", visibility: "PROTECTED" } }));
	await ok(api.create(member, { content: "a note for @user1", visibility: "PROTECTED" }));
	return { space, memo };
}

/**
 * A list's first page of one item, then its second page through the token (both positions),
 * each request run through `check` (which sends it and inspects what it made the store do).
 */
export async function firstAndNextPage(
	api: MemoClient,
	check: (request: () => Promise<Answer<unknown>>) => Promise<unknown>,
	path: string,
	as: Session | null,
	query: Record<string, string> = {}
): Promise<void> {
	let token = "";
	await check(async () => {
		const res = await api.request<{ nextPageToken?: string }>("GET", path, { as, query: { ...query, pageSize: "1" } });
		token = res.body?.nextPageToken ?? "";
		return res;
	});
	if (token === "") throw new Error(`${path} ${JSON.stringify(query)}: the first page of one item has no next page token`);
	await check(() => api.request("GET", path, { as, query: { ...query, pageSize: "1", pageToken: token } }));
}
