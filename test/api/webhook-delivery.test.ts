import { ServiceBroker, type Service } from "moleculer";
import WebhooksService from "../../services/auth/webhooks/webhooks.service.js";
import { WEBHOOK_DELIVERIES, type DeliveryDoc } from "../../services/auth/webhooks/delivery-doc.js";
import { attachResources, documentsOf, resourcesOf } from "../../shared/runtime/resources.js";
import { metricsUrl } from "../support/metrics.js";
import { usePopulatedApp } from "../support/populated-app.js";
import { waitFor } from "../support/processes.js";
import type { Session } from "../support/users.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

/**
 * Webhook deliveries (contract 17) from the embedded app to a real receiver on loopback: signed
 * as upstream signs them, at least once, in order per webhook, retried with back-off while the
 * receiver is down, and never the same attempt from two workers. The delivery worker's clock is
 * stepped by the tests, so minutes of back-off pass at once.
 */

const { app, api, users: [alice, bob] } = usePopulatedApp(2, { LINK_METADATA_ALLOW_PRIVATE_NETWORKS: "true", METRICS_ENABLED: "true", METRICS_PORT: "0" });

type Worker = Service & { clock: () => number; deliverDue(): Promise<void>; housekeeping(): Promise<void> };

let receiver: Receiver;
/** How far the worker's clock is ahead of the real one; each test starts at 0. */
let shift = 0;
const now = () => Date.now() + shift;
const worker = () => app().node.broker.getLocalService("webhooks") as unknown as Worker;
const deliveries = () => documentsOf(app().node.broker).collection<DeliveryDoc>(WEBHOOK_DELIVERIES);

beforeAll(async () => {
	receiver = await startReceiver();
	worker().clock = now;
});
afterAll(async () => {
	await receiver.close();
});
beforeEach(() => {
	shift = 0;
	receiver.received.length = 0;
	receiver.failing = false;
});

/** A webhook to the receiver; its secret generated, or `signingSecret` (the receiver checks one secret). */
async function createWebhook(as: Session, signingSecret?: string): Promise<string> {
	const res = await api.request<{ name: string }>("POST", `/users/${as.user.username}/webhooks`, { as, body: { url: receiver.url, displayName: "receiver", signingSecret } });
	expect(res.status).toBe(200);
	receiver.secret = (await api.request<{ signingSecret: string }>("GET", `/${res.body.name}:getSigningSecret`, { as })).body.signingSecret;
	return res.body.name;
}

async function deleteWebhook(as: Session, name: string): Promise<void> {
	expect((await api.request("DELETE", `/${name}`, { as })).status).toBe(200);
}

/** Steps the worker's clock by `stepMs` and runs its passes until `done`, at most `steps` times. */
async function stepUntil(done: () => boolean, stepMs: number, steps: number): Promise<void> {
	for (let i = 0; i < steps && !done(); i++) {
		await worker().deliverDue();
		if (!done()) shift += stepMs;
	}
	expect(done()).toBe(true);
}

test("created, updated and deleted memos reach the receiver signed, in order, with upstream's payload; a deleted memo's content is still there", async () => {
	const hook = await createWebhook(alice());
	const memo = (await api.create(alice(), { content: "first words" })).body;
	expect((await api.update(alice(), memo.name, "content", { content: "second words" })).status).toBe(200);
	expect((await api.remove(alice(), memo.name)).status).toBe(200);
	// Bob's memos go to Bob's webhooks, not Alice's.
	expect((await api.create(bob(), { content: "not for alice" })).status).toBe(200);
	await waitFor("three deliveries", async () => (receiver.delivered().length >= 3 ? true : undefined), 60000);
	const got = receiver.delivered();
	expect(got.map(r => [r.body.activityType, r.body.memo.content])).toEqual([
		["memos.memo.created", "first words"],
		["memos.memo.updated", "second words"],
		["memos.memo.deleted", "second words"]
	]);
	for (const r of got) {
		expect(r.verified).toBe(true);
		expect(r.webhookId).toMatch(/^msg_\S+$/);
		// The memo as upstream json.Marshal's its Go v1pb.Memo: snake_case, enums as numbers (PRIVATE = 1, NORMAL = 1), {seconds, nanos}.
		expect(r.body).toMatchObject({ url: receiver.url, creator: "users/user1", memo: { name: memo.name, state: 1, creator: "users/user1", visibility: 1 } });
		const created = Date.parse(String(memo.createTime));
		expect(r.body.memo.create_time).toEqual({ seconds: Math.floor(created / 1000), nanos: (created % 1000) * 1e6 || undefined });
		expect(Object.keys(r.body)).toEqual(["url", "activityType", "creator", "memo"]);
		expect(Object.keys(r.body.memo)).toEqual(expect.arrayContaining(["name", "state", "creator", "create_time", "update_time", "content", "visibility", "snippet"]));
		expect(Object.keys(r.body.memo).filter(key => /[A-Z]/.test(key) || ["space", "tags", "pinned", "attachments", "relations", "reactions"].includes(key))).toEqual([]);
	}
	expect(new Set(got.map(r => r.webhookId)).size).toBe(3);
	await deleteWebhook(alice(), hook);
});

test("a webhook whose secret was emptied by an update still gets signed deliveries, under the generated secret", async () => {
	const hook = await createWebhook(alice());
	const old = receiver.secret;
	expect((await api.request("PATCH", `/${hook}`, { as: alice(), query: { updateMask: "signing_secret" }, body: { signingSecret: "" } })).status).toBe(200);
	receiver.secret = (await api.request<{ signingSecret: string }>("GET", `/${hook}:getSigningSecret`, { as: alice() })).body.signingSecret;
	expect(receiver.secret).not.toBe(old);
	expect(receiver.secret).toMatch(/^whsec_/);
	await api.create(alice(), { content: "signed still" });
	await waitFor("one delivery", async () => (receiver.delivered().length >= 1 ? true : undefined), 60000);
	expect(receiver.received.map(r => [r.verified, r.body.memo.content])).toEqual([[true, "signed still"]]);
	await deleteWebhook(alice(), hook);
});

test("a comment on her memo reaches her webhook as memos.memo.comment.created, as upstream", async () => {
	const hook = await createWebhook(alice());
	const memo = (await api.create(alice(), { content: "open for comments", visibility: "PROTECTED" })).body;
	const comment = await api.request<{ name: string }>("POST", `/${memo.name}/comments`, { as: bob(), body: { content: "bob's reply" } });
	expect(comment.status).toBe(200);
	await waitFor("two deliveries", async () => (receiver.delivered().length >= 2 ? true : undefined), 60000);
	expect(receiver.delivered().map(r => [r.body.activityType, r.body.creator, r.body.memo.name])).toEqual([
		["memos.memo.created", "users/user1", memo.name],
		["memos.memo.comment.created", "users/user2", comment.body.name]
	]);
	await deleteWebhook(alice(), hook);
});

test("a receiver down for 10 minutes gets every delivery, in order, once it is back; a later delivery never goes before an earlier one", async () => {
	const hook = await createWebhook(alice());
	const downUntil = now() + 10 * 60 * 1000;
	receiver.failing = () => now() < downUntil;
	const memo = (await api.create(alice(), { content: "v0" })).body;
	for (let i = 1; i <= 4; i++) expect((await api.update(alice(), memo.name, "content", { content: `v${i}` })).status).toBe(200);
	await stepUntil(() => receiver.delivered().length >= 5, 15 * 1000, 400);
	expect(receiver.delivered().map(r => r.body.memo.content)).toEqual(["v0", "v1", "v2", "v3", "v4"]);
	// Every failed request was the earliest undelivered change: nothing overtook it.
	const failed = receiver.received.filter(r => r.status !== 200);
	expect(failed.length).toBeGreaterThanOrEqual(4);
	expect(new Set(failed.map(r => r.body.memo.content))).toEqual(new Set(["v0"]));
	expect(receiver.received.every(r => r.verified)).toBe(true);
	// Back-off: 1, 2, 4 and 8 minutes after the failures, so the first attempt after the outage is at most 8 minutes late.
	expect(failed.length).toBeLessThanOrEqual(6);
	await deleteWebhook(alice(), hook);
});

test("after 24 hours of failures a delivery is dropped, and the next one goes", async () => {
	const hook = await createWebhook(alice());
	receiver.failing = true;
	const memo = (await api.create(alice(), { content: "doomed" })).body;
	await stepUntil(() => receiver.received.length >= 1, 1000, 50);
	await stepUntilDropped(receiver.received[0]!.webhookId.slice("msg_".length));
	receiver.failing = false;
	expect((await api.update(alice(), memo.name, "content", { content: "after" })).status).toBe(200);
	await stepUntil(() => receiver.delivered().length >= 1, 1000, 50);
	expect(receiver.delivered().map(r => r.body.memo.content)).toEqual(["after"]);
	await deleteWebhook(alice(), hook);
});

async function stepUntilDropped(id: string): Promise<void> {
	for (let i = 0; i < 100; i++) {
		const delivery = await deliveries().findOne({ _id: id });
		if (delivery?.state === "dropped") {
			expect(delivery.attempts).toBeGreaterThan(5);
			expect(delivery.doneAt! - delivery.createTime).toBeGreaterThanOrEqual(24 * 60 * 60 * 1000);
			return;
		}
		shift += 30 * 60 * 1000;
		await worker().deliverDue();
	}
	throw new Error("the delivery was never dropped");
}

test("two delivery workers on one store never send the same attempt", async () => {
	// A second worker, as another process's would be: its own broker, the same store.
	const other = new ServiceBroker({ logger: false, nodeID: "second-worker" });
	attachResources(other, { config: resourcesOf(app().node.broker).config, documents: documentsOf(app().node.broker) });
	const second = other.createService(WebhooksService) as unknown as Worker;
	second.clock = now;
	await other.start();
	try {
		const first = await createWebhook(alice());
		const hooks = [first, await createWebhook(alice(), receiver.secret)];
		let answered = 0;
		// Every third request fails, so attempts are retried by whichever worker gets there.
		receiver.failing = () => ++answered % 3 === 0;
		const memo = (await api.create(alice(), { content: "c0" })).body;
		for (let i = 1; i < 10; i++) expect((await api.update(alice(), memo.name, "content", { content: `c${i}` })).status).toBe(200);
		const finished = async () => (await deliveries().count({ webhookId: { $in: hooks.map(h => h.split("/").at(-1)) }, state: "pending" })) === 0;
		for (let i = 0; i < 200 && !(await finished()); i++) {
			await Promise.all([worker().deliverDue(), second.deliverDue(), worker().deliverDue(), second.deliverDue()]);
			shift += 60 * 1000;
		}
		expect(await finished()).toBe(true);
		const sent = await deliveries().find({ webhookId: { $in: hooks.map(h => h.split("/").at(-1)) } });
		expect(sent).toHaveLength(20);
		for (const delivery of sent) {
			const requests = receiver.received.filter(r => r.webhookId === `msg_${delivery._id}`);
			// One request per attempt taken, and exactly one answered 200.
			expect({ id: delivery._id, requests: requests.length, ok: requests.filter(r => r.status === 200).length }).toEqual({ id: delivery._id, requests: delivery.attempts, ok: 1 });
		}
		// Per webhook, the contents arrived in order.
		for (const hook of hooks) {
			const id = hook.split("/").at(-1)!;
			const delivered = receiver.delivered().filter(r => r.webhookId.endsWith(`-${id}`));
			expect(delivered.map(r => r.body.memo.content)).toEqual(Array.from({ length: 10 }, (_, i) => `c${i}`));
		}
		for (const hook of hooks) await deleteWebhook(alice(), hook);
	} finally {
		await other.stop();
	}
});

test("metrics: attempts, successes, failures and drops counted; the queue age is the oldest pending delivery's", async () => {
	const sample = async (name: string) => {
		const text = await (await fetch(metricsUrl(app()))).text();
		const line = text.split("\n").find(l => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
		return Number(line?.split(" ").at(-1));
	};
	// The tests above attempted, delivered, failed and dropped deliveries.
	for (const name of ["attempted", "succeeded", "failed", "dropped"]) expect({ name, value: await sample(`memos_webhook_deliveries_${name}_total`) }).toEqual({ name, value: expect.any(Number) });
	expect(await sample("memos_webhook_deliveries_dropped_total")).toBeGreaterThanOrEqual(1);
	expect(await sample("memos_webhook_deliveries_failed_total")).toBeGreaterThan(await sample("memos_webhook_deliveries_dropped_total"));
	expect(await sample("memos_webhook_deliveries_attempted_total")).toBe((await sample("memos_webhook_deliveries_succeeded_total")) + (await sample("memos_webhook_deliveries_failed_total")));

	const hook = await createWebhook(alice());
	receiver.failing = true;
	await api.create(alice(), { content: "waiting" });
	await stepUntil(() => receiver.received.length >= 1, 1000, 50);
	shift += 90 * 1000;
	await worker().housekeeping();
	expect(await sample("memos_webhook_queue_age_seconds")).toBeGreaterThanOrEqual(90);
	// Due again after the first minute of back-off: 30 s overdue.
	expect(await sample("memos_webhook_queue_lag_seconds")).toBeGreaterThanOrEqual(29);
	await deleteWebhook(alice(), hook);
	await worker().housekeeping();
	expect(await sample("memos_webhook_queue_age_seconds")).toBe(0);
});
