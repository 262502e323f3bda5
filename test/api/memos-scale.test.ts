import { jest } from "@jest/globals";
import type { MemoDoc } from "../../services/memos/memo-doc.js";
import { currentRequestId } from "../../shared/runtime/request-context.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import { listAll } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";
import { waitFor } from "../support/processes.js";

const { app, api, users: [user] } = usePopulatedApp(1);

const COUNT = 10_000;
const BASE_TIME = Date.UTC(2025, 0, 1);

beforeAll(async () => {
	// One memo through the API gives the creator's internal id; the rest go straight into the store.
	const first = await api.create(user(), { content: "seed" }, "seed");
	expect(first.status).toBe(200);
	const memos = documentsOf(app().node.broker).collection<MemoDoc>("memos");
	const seed = await memos.findOne({ _id: "seed" });
	if (seed === null) throw new Error("seed memo missing");
	for (let i = 0; i < COUNT; i++) {
		await memos.insert({
			...seed,
			_id: `bulk-${i}`,
			seq: 1_000_000 + i,
			content: `bulk memo ${i}${i % 100 === 0 ? " #hundred" : ""}`,
			visibility: i % 3 === 0 ? "PUBLIC" : "PRIVATE",
			pinned: i % 7 === 0,
			createTime: BASE_TIME + i * 1000,
			updateTime: BASE_TIME + i * 1000,
			tags: i % 100 === 0 ? ["hundred"] : []
		});
	}
	// The start-up pass (purge and repair, memo-cleanup.ts) runs in the background once the
	// attachments service is there; its queries must not fall into a request's count below.
	const memosService = app().node.broker.getLocalService("memos") as unknown as { startRepair?: Promise<void> };
	await waitFor("the memos service's start-up pass", async () => (memosService.startRepair ? true : undefined));
	await memosService.startRepair;
}, 120_000);

/**
 * The memos-collection queries of one request: those that select a page carry a limit, a
 * merged read (Collection.findMerged) one per branch. A signed-in user in no space reads three
 * branches (own, PUBLIC, PROTECTED: list-query.ts), each with the limit pageSize + 1, whatever
 * the collection's size. Only queries made while serving a request count: the memos service's
 * timers (outbox relay, purge, notifications) query the same collection at times of their own.
 */
async function queriesOf(query: Record<string, string>) {
	const memos = documentsOf(app().node.broker).collection<MemoDoc>("memos");
	const { find: findOf, findMerged: findMergedOf } = memos;
	const finds: Parameters<typeof memos.find>[] = [];
	const mergedReads: Parameters<typeof memos.findMerged>[] = [];
	const find = jest.spyOn(memos, "find").mockImplementation((...args) => {
		if (currentRequestId() !== undefined) finds.push(args);
		return findOf.apply(memos, args);
	});
	const findMerged = jest.spyOn(memos, "findMerged").mockImplementation((...args) => {
		if (currentRequestId() !== undefined) mergedReads.push(args);
		return findMergedOf.apply(memos, args);
	});
	try {
		const res = await api.list(user(), query);
		expect(res.status).toBe(200);
		const limits = [
			...finds.flatMap(([, options]) => (options?.limit === undefined ? [] : [options.limit])),
			...mergedReads.flatMap(([branches, options]) => branches.map(() => options.limit))
		];
		return { res, selecting: limits.length, limits: [...new Set(limits)], total: finds.length + mergedReads.length };
	} finally {
		find.mockRestore();
		findMerged.mockRestore();
	}
}

test("a filtered ListMemos page over 10,000 memos is selected by one store query per readable branch, each limited to pageSize + 1", async () => {
	const filter = '"hundred" in tags && visibility == "PUBLIC"';
	const first = await queriesOf({ filter, pageSize: "10" });
	// i % 100 === 0 and i % 3 === 0: i = 9900, 9600, …, newest first.
	expect(first.res.body.memos.map(m => m.name)).toEqual([9900, 9600, 9300, 9000, 8700, 8400, 8100, 7800, 7500, 7200].map(i => `memos/bulk-${i}`));
	expect(first.res.body.nextPageToken).not.toBe("");
	expect(first.selecting).toBe(3);
	expect(first.limits).toEqual([11]);

	const next = await queriesOf({ filter, pageSize: "10", pageToken: first.res.body.nextPageToken });
	expect(next.res.body.memos.map(m => m.name)).toEqual([6900, 6600, 6300, 6000, 5700, 5400, 5100, 4800, 4500, 4200].map(i => `memos/bulk-${i}`));
	expect(next.selecting).toBe(3);
	expect(next.limits).toEqual([11]);

	// What responses carry besides the page (relations, comments) costs a fixed number of
	// queries: a page of 1000 memos makes no more store calls than a page of 10.
	const large = await queriesOf({ pageSize: "1000" });
	expect(large.res.body.memos).toHaveLength(1000);
	expect(large.selecting).toBe(3);
	expect(large.limits).toEqual([1001]);
	expect(large.total).toBeLessThanOrEqual(first.total);
});

test("pageSize above 1000 is coerced to 1000, and the pages cover every memo once", async () => {
	const first = await api.list(user(), { pageSize: "5000", orderBy: "pinned desc, create_time asc" });
	expect(first.body.memos).toHaveLength(1000);
	const all = await listAll(api, user(), { pageSize: "1000", orderBy: "pinned desc, create_time asc" });
	expect(all.pages).toEqual([...Array<number>(10).fill(1000), 1]);
	expect(new Set(all.names).size).toBe(COUNT + 1);
	const pinned = Math.ceil(COUNT / 7);
	expect(all.names.slice(0, 2)).toEqual(["memos/bulk-0", "memos/bulk-7"]);
	expect(all.names[pinned]).toBe("memos/bulk-1");
	expect(all.names.at(-1)).toBe("memos/seed");
}, 60_000);
