import type { MemosDeps } from "../../services/memos/memos-deps.js";
import { BULK_BATCH } from "../../services/memos/memo-bulk-changes.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import { ok } from "../support/list-fixture.js";
import { usePopulatedApp } from "../support/populated-app.js";
import { waitFor } from "../support/processes.js";
import { openSse, type SseStream } from "../support/sse-client.js";
import type { Session } from "../support/users.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

/**
 * Changes made to many memos at once (contract 17): DeleteUser deletes every memo of the user,
 * DeleteSpace detaches every memo of the space. Each memo is reported as the single-memo
 * operations report one: a signed webhook delivery per memo to its creator's webhooks, and a
 * change event per memo to the live streams of those who may read it, over more memos than one
 * batch holds. A crash midway is completed by the retry, each deletion delivered once.
 */

const { app, api, admin, users: [alice, bob, carol, dave] } = usePopulatedApp(4, { LINK_METADATA_ALLOW_PRIVATE_NETWORKS: "true" });

/** More memos than one batch: the batches' boundary is crossed. */
const MANY = BULK_BATCH + 5;

const receivers: Receiver[] = [];
const streams: SseStream[] = [];

afterEach(async () => {
	for (const stream of streams.splice(0)) stream.close();
	for (const receiver of receivers.splice(0)) await receiver.close();
});

/** A receiver, and a webhook of `as` to it whose secret the receiver checks. */
async function webhookOf(as: Session): Promise<{ receiver: Receiver; webhook: string }> {
	const receiver = await startReceiver();
	receivers.push(receiver);
	const created = await ok(api.request<{ name: string }>("POST", `/users/${as.user.username}/webhooks`, { as, body: { url: receiver.url, displayName: "bulk" } }));
	receiver.secret = (await ok(api.request<{ signingSecret: string }>("GET", `/${created.name}:getSigningSecret`, { as }))).signingSecret;
	return { receiver, webhook: created.name };
}

async function streamOf(as: Session): Promise<SseStream> {
	const stream = await openSse(app().baseUrl, as.accessToken);
	streams.push(stream);
	expect(stream.status).toBe(200);
	return stream;
}

async function createMany(as: Session, count: number, memo: Record<string, unknown>): Promise<string[]> {
	const names: string[] = [];
	for (let i = 0; i < count; i++) names.push((await ok(api.create(as, { content: `memo ${i} of ${as.user.username}`, ...memo }))).name);
	return names;
}

/** The delivered requests of `type`, once `count` of them arrived. */
async function deliveredOf(receiver: Receiver, type: string, count: number) {
	const of = () => receiver.delivered().filter(r => r.body.activityType === type);
	await waitFor(`${count} ${type} deliveries`, async () => (of().length >= count ? true : undefined), 60000);
	return of();
}

/** The memos named by `type` events on `stream`, once every one of `names` is among them. */
async function heardOf(stream: SseStream, type: string, names: readonly string[]): Promise<string[]> {
	const of = () => stream.events.filter(e => e.type === type).map(e => e.name);
	await stream.until(`${type} of ${names.length} memos`, () => names.every(name => of().includes(name)), 60000);
	return of();
}

const sorted = (names: Iterable<string>) => [...names].sort();

test("DeleteUser: each of the user's memos reaches their webhook once as a signed memos.memo.deleted, readers' streams hear each deletion and each reaction taken away", async () => {
	const { receiver } = await webhookOf(carol());
	const memos = await createMany(carol(), MANY, { visibility: "PROTECTED" });
	// Deleted before: reported then, not again.
	expect((await api.remove(carol(), memos[0]!)).status).toBe(200);
	const reacted = (await ok(api.create(alice(), { content: "carol reacts", visibility: "PROTECTED" }))).name;
	await ok(api.request("POST", `/${reacted}/reactions`, { as: carol(), body: { reaction: { reactionType: "👍" } } }));
	const watching = await streamOf(alice());

	expect((await api.request("DELETE", "/users/user3", { as: admin() })).status).toBe(200);

	const deleted = await deliveredOf(receiver, "memos.memo.deleted", MANY);
	expect(sorted(deleted.map(r => r.body.memo.name))).toEqual(sorted(memos));
	expect(new Set(deleted.map(r => r.webhookId)).size).toBe(MANY);
	for (const r of deleted) {
		expect(r.verified).toBe(true);
		expect(r.body.creator).toBe("users/user3");
		expect(r.body.memo).toMatchObject({ state: 1, visibility: 2 });
	}
	expect(sorted(await heardOf(watching, "memo.deleted", memos.slice(1)))).toEqual(sorted(memos.slice(1)));
	await heardOf(watching, "reaction.deleted", [reacted]);
	expect(watching.events.filter(e => e.type === "reaction.deleted")).toEqual([{ type: "reaction.deleted", name: reacted }]);
	expect((await ok(api.request<{ reactions: unknown[] }>("GET", `/${reacted}/reactions`, { as: alice() }))).reactions).toEqual([]);

	// The deleted user's webhook served what was recorded, and is gone once nothing is left to send.
	const worker = app().node.broker.getLocalService("webhooks") as unknown as { housekeeping(): Promise<void> };
	const webhooks = documentsOf(app().node.broker).collection("auth_webhooks");
	await waitFor("the retired webhook removed", async () => {
		await worker.housekeeping();
		return (await webhooks.count({ retired: true })) === 0 ? true : undefined;
	}, 60000);
	expect(receiver.received.filter(r => r.body.activityType === "memos.memo.deleted")).toHaveLength(MANY);
});

test("DeleteSpace: each memo of the space is updated and reported to its creator's webhook; streams hear it where the reader can read the memo now", async () => {
	const space = (await ok(api.request<{ name: string }>("POST", "/spaces", { as: alice(), query: { spaceId: "bulk" }, body: { displayName: "Bulk" } }))).name;
	await ok(api.request("POST", `/${space}/members`, { as: alice(), body: { user: "users/user2" } }));
	const { receiver } = await webhookOf(alice());
	const spaceMemos = await createMany(alice(), MANY, { visibility: "SPACE", space });
	const shared = (await ok(api.create(alice(), { content: "for every signed-in user", visibility: "PROTECTED", space }))).name;
	const bobs = (await ok(api.create(bob(), { content: "bob's, for the space", visibility: "SPACE", space }))).name;
	const [aliceStream, bobStream] = [await streamOf(alice()), await streamOf(bob())];

	expect((await api.request("DELETE", `/${space}`, { as: alice(), query: { force: "true" } })).status).toBe(200);

	const updated = await deliveredOf(receiver, "memos.memo.updated", MANY + 1);
	expect(sorted(updated.map(r => r.body.memo.name))).toEqual(sorted([...spaceMemos, shared]));
	expect(new Set(updated.map(r => r.webhookId)).size).toBe(MANY + 1);
	for (const r of updated) {
		expect(r.verified).toBe(true);
		// SPACE (4) became PRIVATE (1); upstream's payload has no space.
		expect(r.body.memo.visibility).toBe(r.body.memo.name === shared ? 2 : 1);
		expect(r.body.memo).not.toHaveProperty("space");
	}
	// Alice reads all of hers; bob his own and the PROTECTED one, no longer alice's, now PRIVATE.
	expect(sorted(await heardOf(aliceStream, "memo.updated", [...spaceMemos, shared]))).toEqual(sorted([...spaceMemos, shared]));
	await heardOf(bobStream, "memo.updated", [bobs, shared]);
	// Heard after every change above on the same gateway, so bob's stream has heard all it will of them.
	const marker = (await ok(api.create(alice(), { content: "marker", visibility: "PROTECTED" }))).name;
	await heardOf(bobStream, "memo.created", [marker]);
	expect(sorted(bobStream.events.filter(e => e.type === "memo.updated").map(e => e.name))).toEqual(sorted([bobs, shared]));
	expect(await ok(api.get(alice(), spaceMemos[MANY - 1]!))).toMatchObject({ visibility: "PRIVATE", space: null });
});

test("a DeleteUser that fails midway (the memos service's store fails in the second batch) is completed by its retry, each deletion delivered once", async () => {
	const { receiver } = await webhookOf(dave());
	const memos = await createMany(dave(), MANY, { visibility: "PRIVATE" });
	const documents = documentsOf(app().node.broker);
	const daveId = (await documents.collection("users").findOne({ username: "user4" }))!._id;
	expect(await documents.collection("memos").count({ creatorId: daveId })).toBe(MANY);
	const service = app().node.broker.getLocalService("memos") as unknown as { deps(caller: unknown): MemosDeps };
	const deps = service.deps;
	// The first batch written and relayed, the second begun: written memos whose entries are not relayed yet.
	const failAfter = BULK_BATCH + 2;
	service.deps = caller => {
		const real = deps.call(service, caller);
		let writes = 0;
		const memosCollection = new Proxy(real.store.memos, {
			get(target, key) {
				if (key === "findOneAndUpdate") {
					return (...args: Parameters<typeof target.findOneAndUpdate>) => (++writes > failAfter ? Promise.reject(new Error("injected: the store went away")) : target.findOneAndUpdate(...args));
				}
				const value = Reflect.get(target, key) as unknown;
				return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
			}
		});
		return { ...real, store: { ...real.store, memos: memosCollection } };
	};
	try {
		expect((await api.request("DELETE", "/users/user4", { as: admin() })).status).toBe(500);
	} finally {
		service.deps = deps;
	}
	// The user is still there, some memos deleted; the retry finishes.
	expect((await api.request("GET", "/users/user4", { as: admin() })).status).toBe(200);
	expect((await api.request("DELETE", "/users/user4", { as: admin() })).status).toBe(200);

	const deleted = await deliveredOf(receiver, "memos.memo.deleted", MANY);
	expect(sorted(deleted.map(r => r.body.memo.name))).toEqual(sorted(memos));
	expect(deleted.every(r => r.verified)).toBe(true);
	expect(await documents.collection("memos").count({ creatorId: daveId })).toBe(0);
});
