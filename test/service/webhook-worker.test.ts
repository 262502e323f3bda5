import { WEBHOOK_DELIVERIES, WEBHOOK_LANES, type DeliveryDoc, type LaneDoc } from "../../services/auth/webhooks/delivery-doc.js";
import { DELIVERY_SCHEDULE, retryAt } from "../../services/auth/webhooks/delivery-schedule.js";
import { dueWebhooks, serveLane, type WorkerDeps } from "../../services/auth/webhooks/delivery-worker.js";
import { ensureWebhookIndexes } from "../../services/auth/webhooks/webhook-indexes.js";
import { WEBHOOKS, type WebhookDoc } from "../../services/auth/webhooks/webhook-doc.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { waitFor } from "../support/processes.js";

/** The delivery worker's rules on a real store (delivery-worker.ts, delivery-schedule.ts), with a recording sender. */

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
let documents: SqliteDocumentStore;
const now = Date.UTC(2026, 0, 1);
const sent: string[] = [];

function deps(holder: string, post: WorkerDeps["post"] = async (_url, _headers, body) => {
	sent.push((JSON.parse(body) as { memo: { content: string } }).memo.content);
	return { ok: true, status: 200 };
}): WorkerDeps {
	return {
		webhooks: documents.collection<WebhookDoc>(WEBHOOKS),
		deliveries: documents.collection<DeliveryDoc>(WEBHOOK_DELIVERIES),
		lanes: documents.collection<LaneDoc>(WEBHOOK_LANES),
		holder,
		now: () => now,
		schedule: DELIVERY_SCHEDULE,
		leaseMs: MINUTE,
		post,
		count: () => undefined
	};
}

async function record(webhookId: string, content: string, changeTime: number): Promise<void> {
	await documents.collection<DeliveryDoc>(WEBHOOK_DELIVERIES).insert({
		_id: `${content}-${webhookId}`,
		webhookId,
		changeId: content,
		activityType: "memos.memo.updated",
		creator: "users/alice",
		memo: JSON.stringify({ content }),
		changeTime,
		createTime: now,
		state: "pending",
		attempts: 0,
		dueAt: changeTime,
		doneAt: null,
		lastResult: null
	});
}

beforeAll(async () => {
	documents = new SqliteDocumentStore({ dir: null });
	await ensureWebhookIndexes(documents);
	for (const id of ["A", "B", "C"]) await documents.collection<WebhookDoc>(WEBHOOKS).insert({ _id: id, userId: "u", url: "http://x/", displayName: "", signingSecret: "s", createTime: 0, updateTime: 0 });
});
afterAll(async () => {
	await documents.close();
});

test("the back-off: 1 minute doubling to 6 hours, the last attempt at 24 hours, then dropped", () => {
	const created = now;
	const delays = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map(attempts => (retryAt(DELIVERY_SCHEDULE, attempts, created, created) as number) - created);
	expect(delays).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 360, 360].map(m => m * MINUTE));
	expect(retryAt(DELIVERY_SCHEDULE, 12, created, created + 23 * HOUR)).toBe(created + 24 * HOUR);
	expect(retryAt(DELIVERY_SCHEDULE, 13, created, created + 24 * HOUR)).toBeNull();
});

test("one webhook's long backlog does not hide the others from a pass", async () => {
	for (let i = 0; i < 50; i++) await record("A", `a${i}`, now - HOUR + i);
	await record("B", "b0", now - 1000);
	await record("C", "c0", now - 500);
	expect(await dueWebhooks(deps("w1"), 3)).toEqual(["A", "B", "C"]);
	expect(await dueWebhooks(deps("w1"), 2)).toEqual(["A", "B"]);
});

test("a lane is served by one holder at a time, its deliveries in change order", async () => {
	sent.length = 0;
	let release!: () => void;
	const gate = new Promise<void>(resolve => (release = resolve));
	// w1 takes lane B and is held up in its attempt; w2 finds the lane taken and sends nothing.
	const slow = serveLane(
		deps("w1", async (_url, _headers, body) => {
			await gate;
			sent.push((JSON.parse(body) as { memo: { content: string } }).memo.content);
			return { ok: true, status: 200 };
		}),
		"B"
	);
	await waitFor("w1 holding lane B", async () => ((await documents.collection<LaneDoc>(WEBHOOK_LANES).findOne({ _id: "B", holder: "w1" })) ? true : undefined), 60000);
	expect(await serveLane(deps("w2"), "B")).toBe(0);
	release();
	expect(await slow).toBe(1);
	expect(await serveLane(deps("w2"), "A")).toBe(50);
	expect(sent).toEqual(["b0", ...Array.from({ length: 50 }, (_, i) => `a${i}`)]);
});

test("a webhook stored without a secret (an older version let an update clear it) is given one before its delivery, which goes signed", async () => {
	const webhooks = documents.collection<WebhookDoc>(WEBHOOKS);
	await webhooks.insert({ _id: "D", userId: "u", url: "http://x/", displayName: "", signingSecret: "", createTime: 0, updateTime: 0 });
	await record("D", "d0", now - 1000);
	const headers: Record<string, string>[] = [];
	expect(await serveLane(deps("w1", async (_url, given) => (headers.push(given), { ok: true, status: 200 })), "D")).toBe(1);
	const secret = (await webhooks.findOne({ _id: "D" }))!.signingSecret;
	expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
	expect(headers).toHaveLength(1);
	expect(headers[0]).toMatchObject({ "webhook-id": "msg_d0-D", "webhook-signature": expect.stringMatching(/^v1,/) });
});
