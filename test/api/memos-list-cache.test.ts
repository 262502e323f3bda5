import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { metricsUrl } from "../support/metrics.js";
import { memoClient, type Memo } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";
import { startPopulatedApp, type Session } from "../support/users.js";

/** The ListMemos response cache (MEMO_LIST_CACHE_MB, README "ListMemos response cache"), seen from HTTP. */
const METRICS = { METRICS_ENABLED: "true", METRICS_PORT: "0" };
const { app, api, users: [alice, bob] } = usePopulatedApp(2, METRICS);

type Lookups = Record<"hit" | "miss" | "bypass", number>;

async function lookups(of: EmbeddedApp = app()): Promise<Lookups> {
	const text = await (await fetch(metricsUrl(of))).text();
	const count = (result: string) => Number(text.match(new RegExp(`^memos_list_cache_lookups_total\\{[^}]*result="${result}"[^}]*\\} (\\d+)`, "m"))?.[1] ?? 0);
	return { hit: count("hit"), miss: count("miss"), bypass: count("bypass") };
}

async function ok<T>(answer: Promise<{ status: number; body: T; text: string }>): Promise<T> {
	const res = await answer;
	if (res.status !== 200) throw new Error(`answered ${res.status}: ${res.text}`);
	return res.body;
}

async function listText(as: Session, query: Record<string, string> = {}): Promise<string> {
	const res = await api.list(as, query);
	if (res.status !== 200) throw new Error(`ListMemos answered ${res.status}: ${res.text}`);
	return res.text;
}

/** Lists asked in turn for a one that the cache answered. */
const CACHED_LIST_ATTEMPTS = 10;

/**
 * `as`'s list (`query`) listed until an answer comes from the cache, which must be the JSON of
 * the list before it. The app's own background writes (a relay pass, a notification sweep) move
 * the store's change token at times of their own, so a second list may be computed again.
 */
async function cachedListText(as: Session, query: Record<string, string> = {}): Promise<string> {
	let previous = await listText(as, query);
	for (let attempt = 0; attempt < CACHED_LIST_ATTEMPTS; attempt++) {
		const before = await lookups();
		const text = await listText(as, query);
		const after = await lookups();
		if (after.hit === before.hit + 1) {
			expect(text).toBe(previous);
			return text;
		}
		expect(after.miss).toBe(before.miss + 1);
		previous = text;
	}
	throw new Error(`no list of ${CACHED_LIST_ATTEMPTS} was answered from the cache`);
}

/**
 * Bob's list (`query`), listed until an answer comes from the cache, then again after `write`:
 * the memo named `name` in that last list (undefined when it is not listed).
 */
async function listedAfter(name: string, write: () => Promise<unknown>, query: Record<string, string> = {}): Promise<Memo | undefined> {
	await cachedListText(bob(), query);
	await write();
	const after = JSON.parse(await listText(bob(), query)) as { memos: Memo[] };
	return after.memos.find(memo => memo.name === name);
}

const publicMemo = (content: string, as: Session = alice()) => ok(api.create(as, { content, visibility: "PUBLIC" }));

describe("ListMemos answers from the cache while nothing it was computed from has changed", () => {
	test("a list asked again is the same JSON, served from the cache; another page size or caller is computed", async () => {
		await publicMemo("listed twice");
		await cachedListText(bob());
		const before = await lookups();
		expect(await listText(bob(), { pageSize: "7" })).not.toBe("");
		expect(await listText(alice())).not.toBe("");
		const after = await lookups();
		expect({ hit: after.hit - before.hit, miss: after.miss - before.miss }).toEqual({ hit: 0, miss: 2 });
	});

	test("updating a listed memo's content shows in the next list", async () => {
		const memo = await publicMemo("content before");
		const listed = await listedAfter(memo.name, () => ok(api.update(alice(), memo.name, "content", { content: "content after" })));
		expect(listed?.content).toBe("content after");
	});

	test("pinning a listed memo shows in the next list", async () => {
		const memo = await publicMemo("to pin");
		expect((await listedAfter(memo.name, () => ok(api.update(alice(), memo.name, "pinned", { pinned: true }))))?.pinned).toBe(true);
	});

	test("a reaction shows in the next list", async () => {
		const memo = await publicMemo("to react to");
		const listed = await listedAfter(memo.name, () => ok(api.request("POST", `/${memo.name}/reactions`, { as: bob(), body: { reaction: { reactionType: "👍" } } })));
		expect(listed?.reactions).toEqual([expect.objectContaining({ reactionType: "👍", creator: "users/user2" })]);
	});

	test("a deleted memo leaves the next list", async () => {
		const memo = await publicMemo("to delete");
		expect(await listedAfter(memo.name, () => ok(api.remove(alice(), memo.name)))).toBeUndefined();
	});

	test("a comment shows as the listed memo's relation in the next list", async () => {
		const memo = await publicMemo("to comment on");
		const listed = await listedAfter(memo.name, () => ok(api.request("POST", `/${memo.name}/comments`, { as: bob(), body: { content: "a comment" } })));
		expect(listed?.relations).toEqual([expect.objectContaining({ relatedMemo: expect.objectContaining({ name: memo.name }), type: "COMMENT" })]);
	});

	test("a relation shows in the next list", async () => {
		const memo = await publicMemo("to relate");
		const other = await publicMemo("related");
		const listed = await listedAfter(memo.name, () =>
			ok(api.request("PATCH", `/${memo.name}/relations`, { as: alice(), body: { relations: [{ relatedMemo: { name: other.name }, type: "REFERENCE" }] } }))
		);
		expect(listed?.relations).toEqual([expect.objectContaining({ relatedMemo: expect.objectContaining({ name: other.name }), type: "REFERENCE" })]);
	});

	test("an attachment set on a listed memo shows in the next list", async () => {
		const memo = await publicMemo("to attach to");
		const attachment = await ok(api.request<{ name: string }>("POST", "/attachments", { as: alice(), body: { filename: "a.txt", content: "aGVsbG8=" } }));
		const listed = await listedAfter(memo.name, () => ok(api.request("PATCH", `/${memo.name}/attachments`, { as: alice(), body: { attachments: [{ name: attachment.name }] } })));
		expect(listed?.attachments).toEqual([expect.objectContaining({ name: attachment.name, filename: "a.txt" })]);
	});

	test("the creator's new username shows in the next list", async () => {
		const memo = await publicMemo("by a renamed user");
		const rename = (from: string, to: string) => ok(api.request("PATCH", `/users/${from}`, { as: alice(), query: { updateMask: "username" }, body: { username: to } }));
		try {
			expect((await listedAfter(memo.name, () => rename("user1", "user1-renamed")))?.creator).toBe("users/user1-renamed");
		} finally {
			await rename("user1-renamed", "user1");
		}
		expect(JSON.parse(await listText(bob())).memos.find((m: Memo) => m.name === memo.name)?.creator).toBe("users/user1");
	});

	test("a space memo shows in the list of the member just added, and leaves it when they are removed", async () => {
		const space = await ok(api.request<{ name: string }>("POST", "/spaces", { as: alice(), query: { spaceId: "cached" }, body: { displayName: "Cached" } }));
		const memo = await ok(api.create(alice(), { content: "for the team", visibility: "SPACE", space: space.name }));
		expect(await listedAfter(memo.name, () => ok(api.request("POST", `/${space.name}/members`, { as: alice(), body: { user: "users/user2" } })))).toBeDefined();
		expect(await listedAfter(memo.name, () => ok(api.request("DELETE", `/${space.name}/members/user2`, { as: alice() })))).toBeUndefined();
	});

	test("a write through another app on the same DATA_DIR (its own SQLite connection, as another process has) shows in the next list", async () => {
		const memo = await publicMemo("written elsewhere");
		const other = await startEmbeddedApp({}, app().dataDir);
		try {
			const elsewhere = memoClient(other.baseUrl);
			const listed = await listedAfter(memo.name, () => ok(elsewhere.update(alice(), memo.name, "content", { content: "changed by the other process" })));
			expect(listed?.content).toBe("changed by the other process");
		} finally {
			await other.stop();
		}
	});

	test("a filter that reads now() is never served from the cache", async () => {
		const query = { filter: "created_ts <= now()" };
		const before = await lookups();
		expect(await listText(bob(), query)).toBe(await listText(bob(), query));
		const after = await lookups();
		expect({ hit: after.hit - before.hit, bypass: after.bypass - before.bypass }).toEqual({ hit: 0, bypass: 2 });
	});
});

describe("MEMO_LIST_CACHE_MB=0", () => {
	test("serves every list uncached", async () => {
		const off = await startPopulatedApp(1, { ...METRICS, MEMO_LIST_CACHE_MB: "0" });
		try {
			const client = memoClient(off.baseUrl);
			await ok(client.create(off.users[0]!, { content: "uncached" }));
			const first = await ok(client.list(off.users[0]!));
			expect(await ok(client.list(off.users[0]!))).toEqual(first);
			expect(first.memos.map(memo => memo.content)).toEqual(["uncached"]);
			expect(await lookups(off)).toEqual({ hit: 0, miss: 0, bypass: 0 });
		} finally {
			await off.stop();
		}
	});
});
