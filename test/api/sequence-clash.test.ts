import type { Doc } from "../../shared/store/document-store.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import { ok } from "../support/list-fixture.js";
import { usePopulatedApp } from "../support/populated-app.js";

/**
 * `seq` breaks the ties of every keyset page, so each collection it orders has a unique index on
 * it (issue 21). A counter that lost its last increments (a rollback in a failover, simulated by
 * moving it back) makes the next inserts clash on that index: they take the following values,
 * and the client sees a normal creation, never ALREADY_EXISTS for an id that is free.
 */

const { app, api, users: [alice] } = usePopulatedApp(1);

interface Counter extends Doc {
	value: number;
}

async function moveCounterBack(collection: string, counter: string, by: number): Promise<void> {
	const counters = documentsOf(app().node.broker).collection<Counter>(collection);
	expect(await counters.update({ _id: counter }, { $inc: { value: -by } })).toBe(1);
}

const seqsOf = async (collection: string) => (await documentsOf(app().node.broker).collection<Doc & { seq: number }>(collection).find({})).map(doc => doc.seq);

test("memos: a creation after the counter moved back takes a free sequence value", async () => {
	for (const id of ["s1", "s2", "s3"]) await ok(api.create(alice(), { content: id }, id));
	await moveCounterBack("memo_sequences", "memos", 3);
	const created = await api.create(alice(), { content: "after the rollback" }, "s4");
	expect(created.status).toBe(200);
	const seqs = await seqsOf("memos");
	expect(new Set(seqs).size).toBe(seqs.length);
	const listed = await api.list(alice(), { orderBy: "create_time desc", pageSize: "2" });
	expect(listed.body.memos[0].name).toBe("memos/s4");
	// A taken id is still ALREADY_EXISTS.
	expect((await api.create(alice(), { content: "again" }, "s4")).status).toBe(409);
});

test("attachments and spaces: the same", async () => {
	for (const name of ["a.txt", "b.txt"]) await ok(api.request("POST", "/attachments", { as: alice(), body: { filename: name, content: "aGk=" } }));
	await moveCounterBack("attachment_sequences", "attachments", 2);
	expect((await api.request("POST", "/attachments", { as: alice(), body: { filename: "c.txt", content: "aGk=" } })).status).toBe(200);
	await ok(api.request("POST", "/spaces", { as: alice(), body: { displayName: "One" }, query: { spaceId: "one" } }));
	await moveCounterBack("space_sequences", "spaces", 2);
	expect((await api.request("POST", "/spaces", { as: alice(), body: { displayName: "Two" }, query: { spaceId: "two" } })).status).toBe(200);
	for (const collection of ["attachments", "spaces", "space_members"]) {
		const seqs = await seqsOf(collection);
		expect({ collection, unique: new Set(seqs).size }).toEqual({ collection, unique: seqs.length });
	}
});
