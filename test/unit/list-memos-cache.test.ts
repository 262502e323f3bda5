import type { Caller } from "../../shared/caller.js";
import { jsonBody } from "../../shared/encoded-json.js";
import type { ListCacheResult } from "../../shared/runtime/business-metrics.js";
import type { ListMemosResponse } from "../../services/memos/list-memos.js";
import { ListMemosCache } from "../../services/memos/list-memos-cache.js";
import type { MemosPeers } from "../../services/memos/memos-deps.js";

const alice: Caller = { id: "u1", username: "alice", role: "USER" };
/** Query parameters as the gateway passes them: strings, as they came. */
const params: Record<string, unknown> = { pageSize: "10" };

/** A cache over a settable token, with peers whose user names can change, counting what it did. */
function fixture(maxBytes = 1024 * 1024) {
	const state = { token: "t1" as string | null, names: new Map([["u2", "users/bob"]]), computed: 0 };
	const results: ListCacheResult[] = [];
	const peers = {
		spacesOf: async () => new Map(),
		userNames: async () => new Map(state.names)
	} as unknown as MemosPeers;
	const cache = new ListMemosCache({ maxBytes, changeToken: () => state.token, count: result => results.push(result) });
	/** Renders one memo of bob's, as memoResponses would, through the peers it is given. */
	const compute = async (used: MemosPeers, during?: () => void): Promise<ListMemosResponse> => {
		state.computed += 1;
		const names = await used.userNames(["u2"]);
		during?.();
		return { memos: [{ name: `memos/m${state.computed}`, creator: names.get("u2") ?? "" }], nextPageToken: "" };
	};
	const list = (during?: () => void, as: Caller | null = alice, given: Record<string, unknown> = params, cacheable = true) =>
		cache.response({ caller: as, params: given }, peers, async used => ({ response: await compute(used, during), cacheable }));
	return { state, results, list };
}

test("the same caller and parameters are answered from the cache while the token holds", async () => {
	const { state, results, list } = fixture();
	const first = await list();
	expect(await list()).toBe(first);
	expect({ computed: state.computed, results }).toEqual({ computed: 1, results: ["miss", "hit"] });
});

test("another caller, or other parameters, is another entry", async () => {
	const { state, list } = fixture();
	await list();
	await list(undefined, { ...alice, role: "ADMIN" });
	await list(undefined, { ...alice, username: "alice2" });
	await list(undefined, null);
	await list(undefined, alice, { ...params, pageSize: "11" });
	await list(undefined, alice, { ...params, showDeleted: "true" });
	expect(state.computed).toBe(6);
});

test("a moved token computes again", async () => {
	const { state, list } = fixture();
	await list();
	state.token = "t2";
	expect((await list()).memos[0]).toEqual({ name: "memos/m2", creator: "users/bob" });
});

test("a response during whose computation the token moved is not kept", async () => {
	const { state, results, list } = fixture();
	await list(() => (state.token = "t2"));
	await list();
	await list();
	expect({ computed: state.computed, results }).toEqual({ computed: 2, results: ["miss", "miss", "hit"] });
});

test("a user name the service's cache now answers otherwise computes again, though the store did not change", async () => {
	const { state, list } = fixture();
	await list();
	state.names = new Map([["u2", "users/robert"]]);
	expect((await list()).memos[0]).toMatchObject({ creator: "users/robert" });
	expect(state.computed).toBe(2);
});

test("without a token (not cacheable) every request is computed and counted as bypass", async () => {
	const { state, results, list } = fixture();
	state.token = null;
	await list();
	await list();
	expect({ computed: state.computed, results }).toEqual({ computed: 2, results: ["bypass", "bypass"] });
});

test("a response computed as not cacheable (a filter reading now()) is not kept and counts as bypass", async () => {
	const { state, results, list } = fixture();
	await list(undefined, alice, params, false);
	await list(undefined, alice, params, false);
	expect({ computed: state.computed, results }).toEqual({ computed: 2, results: ["bypass", "bypass"] });
});

test("kept responses are frozen: a consumer that changes one throws", async () => {
	const { list } = fixture();
	const response = await list();
	expect(() => {
		(response.memos[0] as Record<string, unknown>).creator = "someone else";
	}).toThrow(TypeError);
	expect(() => response.memos.push({})).toThrow(TypeError);
	expect((await list()).memos[0]).toMatchObject({ creator: "users/bob" });
});

test("the JSON the gateway sends for a kept response is the response's, as UTF-8 bytes", async () => {
	const { list } = fixture();
	const kept = await list();
	expect(jsonBody(kept)).toEqual(Buffer.from(JSON.stringify(kept)));
});

test("past the byte budget the least recently used entry goes first", async () => {
	// Each entry's estimate (three times its key's and response's JSON) is about 330 bytes: room for two.
	const { state, list } = fixture(800);
	const page = (pageSize: number) => list(undefined, alice, { ...params, pageSize: String(pageSize) });
	await page(1);
	await page(2);
	await page(1);
	await page(3);
	expect(state.computed).toBe(3);
	await page(1);
	expect(state.computed).toBe(3);
	await page(2);
	expect(state.computed).toBe(4);
});
