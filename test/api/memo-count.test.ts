import type { MemoCountDoc } from "../../services/memos/memo-count.js";
import type { MemosDeps } from "../../services/memos/memos-deps.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import { SETTLE_MS } from "../../shared/store/settle-time.js";
import { failingOnce } from "../support/fail-once.js";
import type { Answer } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

/**
 * InstanceStats' memoCount (contract 4.11: NORMAL and ARCHIVED memos, comments included, not
 * deleted ones) is a counter the memos service keeps (issue 21), read over HTTP after each change
 * with the stats cache off: exact after creates, archiving, soft and forced deletes, a clash on
 * an id and DeleteUser; a write that may have happened without being counted leaves the counter
 * pending, and the repair pass recounts it once the change has settled.
 */

const { app, api, admin, users: [alice, bob] } = usePopulatedApp(2);

interface MemosService {
	deps(caller: unknown): MemosDeps;
	purgeExpiredMemos(now: number): Promise<number>;
}

const memos = () => app().node.broker.getLocalService("memos") as unknown as MemosService;
const counter = () => documentsOf(app().node.broker).collection<MemoCountDoc>("memo_totals").findOne({ _id: "memos" });

async function ok<T>(answer: Promise<Answer<T>>): Promise<T> {
	const res = await answer;
	if (res.status !== 200) throw new Error(`answered ${res.status}: ${res.text}`);
	return res.body;
}

async function memoCount(): Promise<number> {
	const body = await ok(api.request<{ memoCount: number }>("GET", "/instance/stats", { as: admin() }));
	return body.memoCount;
}

/** The memos service's next memo insert happens, then fails as if the process died before counting it. */
function crashAfterNextInsert(): void {
	const service = memos();
	const deps = service.deps.bind(service);
	const injection = { failed: false };
	service.deps = caller => {
		const real = deps(caller);
		return { ...real, store: { ...real.store, memos: failingOnce(real.store.memos, "insert", true, injection, "memos") } };
	};
}

beforeAll(async () => {
	// Every read is gathered afresh (contract 4.11 allows a 60 s cache; the counts are what is tested).
	(app().node.broker.getLocalService("instance") as unknown as { settings: { statsCacheMs: number } }).settings.statsCacheMs = 0;
	// The start-up repair pass has counted the empty store.
	await memos().purgeExpiredMemos(Date.now() + SETTLE_MS + 1);
});

test("exact after creates, comments, archiving, soft and forced deletes and a clash on an id", async () => {
	expect(await memoCount()).toBe(0);
	const first = await ok(api.create(alice(), { content: "first" }, "first"));
	const second = await ok(api.create(alice(), { content: "second" }));
	const third = await ok(api.create(bob(), { content: "third", visibility: "PUBLIC" }));
	await ok(api.request("POST", `/${third.name}/comments`, { as: alice(), body: { content: "a comment" } }));
	expect(await memoCount()).toBe(4);
	await ok(api.update(alice(), second.name, "state", { state: "ARCHIVED" }));
	expect(await memoCount()).toBe(4);
	expect((await api.create(alice(), { content: "same id" }, "first")).status).toBe(409);
	expect(await memoCount()).toBe(4);
	await ok(api.remove(alice(), second.name));
	expect(await memoCount()).toBe(3);
	// Purging a memo already deleted changes nothing; purging a live one counts it out.
	await ok(api.remove(alice(), second.name, "true"));
	expect(await memoCount()).toBe(3);
	await ok(api.remove(alice(), first.name, "true"));
	expect(await memoCount()).toBe(2);
	expect((await counter())?.pendingChanges).toBe(0);
});

test("DeleteUser counts out the user's live memos, not those deleted before", async () => {
	const before = await memoCount();
	const soft = await ok(api.create(bob(), { content: "bob's soft-deleted" }));
	await ok(api.remove(bob(), soft.name));
	await ok(api.create(bob(), { content: "bob's live one" }));
	await ok(api.create(alice(), { content: "alice's, kept" }));
	expect(await memoCount()).toBe(before + 2);
	// Bob's live memos: "third" of the test above and the one just made.
	await ok(api.request("DELETE", "/users/user2", { as: admin() }));
	expect(await memoCount()).toBe(before);
	expect((await counter())?.pendingChanges).toBe(0);
});

test("an insert not counted leaves the counter pending; the repair pass recounts once the change has settled", async () => {
	const before = await memoCount();
	crashAfterNextInsert();
	expect((await api.create(alice(), { content: "written, never counted" })).status).toBe(500);
	// The memo exists (the write happened); the counter has not counted it yet.
	expect((await ok(api.list(alice(), { filter: `content == "written, never counted"` }))).memos).toHaveLength(1);
	expect(await memoCount()).toBe(before);
	expect((await counter())?.pendingChanges).toBe(1);
	// Too recent: the change may still be under way.
	await memos().purgeExpiredMemos(Date.now());
	expect(await memoCount()).toBe(before);
	await memos().purgeExpiredMemos(Date.now() + SETTLE_MS + 1);
	expect(await memoCount()).toBe(before + 1);
	expect((await counter())?.pendingChanges).toBe(0);
});
