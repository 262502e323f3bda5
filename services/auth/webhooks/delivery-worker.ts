import type { Collection } from "../../../shared/store/document-store.js";
import { DuplicateKeyError } from "../../../shared/store/document-store.js";
import type { DeliveryDoc, LaneDoc } from "./delivery-doc.js";
import { retryAt, type DeliverySchedule } from "./delivery-schedule.js";
import type { PostOutcome } from "./post-webhook.js";
import { generateSigningSecret, signatureHeaders } from "./signing-secret.js";
import { goJsonText, toUpstreamMemoJson } from "./upstream-memo-json.js";
import type { WebhookDoc } from "./webhook-doc.js";

/**
 * The delivery worker's rules (contract 17), free of Moleculer so tests can drive them:
 * - a pass looks for due deliveries and serves each of their webhooks' lanes;
 * - a lane is served by the worker holding its lease (a conditional write on the lane
 *   document), so one webhook's deliveries go out one at a time, oldest change first: a later
 *   delivery waits while an earlier one is retried;
 * - each attempt is taken by a conditional increment of the delivery's attempt count, so no two
 *   workers ever send the same attempt, even when a lease ran out under a stalled worker;
 * - a 2xx answer ends the delivery; a failure schedules the next attempt (delivery-schedule.ts)
 *   or, after 24 hours, drops it. A worker that dies mid-attempt leaves the delivery pending: the
 *   next lease holder sends it again (at least once; `webhook-id` lets receivers spot repeats).
 */

export interface WorkerDeps {
	webhooks: Collection<WebhookDoc>;
	deliveries: Collection<DeliveryDoc>;
	lanes: Collection<LaneDoc>;
	/** This worker's name in the lanes it holds (its node and service instance). */
	holder: string;
	now(): number;
	schedule: DeliverySchedule;
	/** How long a lane's lease lasts; renewed before every attempt, so longer than an attempt. */
	leaseMs: number;
	/** Sends one attempt (post-webhook.ts). */
	post(url: string, headers: Record<string, string>, body: string): Promise<PostOutcome>;
	count(outcome: "attempted" | "succeeded" | "failed" | "dropped"): void;
}

/** Finished deliveries are kept this long, so a change recorded again is recognised (record-deliveries.ts). */
export const FINISHED_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/** The lease of `webhookId`'s lane for this worker, or false when another worker holds it. */
async function takeLease(deps: WorkerDeps, webhookId: string): Promise<boolean> {
	const now = deps.now();
	try {
		const lane = await deps.lanes.findOneAndUpdate(
			{ _id: webhookId, $or: [{ leaseUntil: { $lt: now } }, { holder: deps.holder }] },
			{ $set: { leaseUntil: now + deps.leaseMs, holder: deps.holder } },
			{ upsert: true }
		);
		return lane !== null;
	} catch (err) {
		// The lane exists and is held by another worker: the upsert's insert clashed.
		if (err instanceof DuplicateKeyError) return false;
		throw err;
	}
}

async function releaseLease(deps: WorkerDeps, webhookId: string): Promise<void> {
	await deps.lanes.update({ _id: webhookId, holder: deps.holder }, { $set: { leaseUntil: 0 } });
}

/** The request body upstream sends (internal/webhook WebhookRequestPayload, json.Marshal'ed); the delivery keeps our API's Memo. */
export function payloadOf(delivery: DeliveryDoc, url: string): string {
	const memo = toUpstreamMemoJson(JSON.parse(delivery.memo) as Record<string, unknown>);
	return goJsonText({ url, activityType: delivery.activityType, creator: delivery.creator, memo });
}

/**
 * `webhookId` as stored, given a secret first if it has none (stored by a version that let an
 * update clear it, as upstream does): no delivery goes unsigned. Null when it is gone.
 */
async function signableWebhook(deps: WorkerDeps, webhookId: string): Promise<WebhookDoc | null> {
	const webhook = await deps.webhooks.findOne({ _id: webhookId });
	if (webhook === null || webhook.signingSecret !== "") return webhook;
	await deps.webhooks.update({ _id: webhookId, signingSecret: "" }, { $set: { signingSecret: generateSigningSecret() } });
	return deps.webhooks.findOne({ _id: webhookId });
}

/** One attempt of `delivery`, if this worker takes it; false when another worker did. */
async function attempt(deps: WorkerDeps, delivery: DeliveryDoc, webhook: WebhookDoc): Promise<"delivered" | "failed" | "taken"> {
	const taken = await deps.deliveries.findOneAndUpdate({ _id: delivery._id, state: "pending", attempts: delivery.attempts }, { $inc: { attempts: 1 } });
	if (taken === null) return "taken";
	deps.count("attempted");
	const body = payloadOf(taken, webhook.url);
	const headers = signatureHeaders(webhook.signingSecret, `msg_${taken._id}`, Math.floor(deps.now() / 1000), body);
	const outcome = await deps.post(webhook.url, headers, body);
	const now = deps.now();
	const mine = { _id: taken._id, state: "pending", attempts: taken.attempts };
	if (outcome.ok) {
		await deps.deliveries.update(mine, { $set: { state: "delivered", doneAt: now, lastResult: `HTTP ${outcome.status}` } });
		deps.count("succeeded");
		return "delivered";
	}
	deps.count("failed");
	const next = retryAt(deps.schedule, taken.attempts, taken.createTime, now);
	if (next === null) {
		await deps.deliveries.update(mine, { $set: { state: "dropped", doneAt: now, lastResult: outcome.reason } });
		deps.count("dropped");
	} else {
		await deps.deliveries.update(mine, { $set: { dueAt: next, lastResult: outcome.reason } });
	}
	return "failed";
}

/**
 * Serves one webhook's lane while holding its lease: its due deliveries in order, until one
 * fails (the rest wait for it) or none is due. Returns how many were delivered.
 */
export async function serveLane(deps: WorkerDeps, webhookId: string): Promise<number> {
	if (!(await takeLease(deps, webhookId))) return 0;
	let delivered = 0;
	try {
		for (;;) {
			const [head] = await deps.deliveries.find({ webhookId, state: "pending" }, { sort: { webhookId: 1, state: 1, changeTime: 1, _id: 1 }, limit: 1 });
			if (head === undefined) return delivered;
			if (head.dueAt > deps.now()) {
				// The later ones wait for the head: they are not due before it.
				await deps.deliveries.update({ webhookId, state: "pending", dueAt: { $lt: head.dueAt } }, { $set: { dueAt: head.dueAt } }, { multi: true });
				return delivered;
			}
			const webhook = await signableWebhook(deps, webhookId);
			if (webhook === null) {
				// The webhook (or its user) was deleted: nothing is left to send to, nor a lane to keep.
				await deps.deliveries.remove({ webhookId, state: "pending" }, { multi: true });
				await deps.lanes.remove({ _id: webhookId, holder: deps.holder });
				return delivered;
			}
			// Renewed before each attempt, so an attempt never starts on a lease about to end.
			if (!(await takeLease(deps, webhookId))) return delivered;
			const result = await attempt(deps, head, webhook);
			if (result !== "delivered") return delivered;
			delivered++;
		}
	} finally {
		await releaseLease(deps, webhookId);
	}
}

/**
 * Up to `want` webhooks with deliveries due now, the longest-waiting first. Each query leaves out
 * the webhooks already found, so one webhook's long backlog (all due while it drains) cannot hide
 * the others.
 */
export async function dueWebhooks(deps: WorkerDeps, want: number): Promise<string[]> {
	const now = deps.now();
	const found: string[] = [];
	while (found.length < want) {
		const filter = { state: "pending", dueAt: { $lte: now }, ...(found.length === 0 ? {} : { webhookId: { $nin: found } }) };
		const due = await deps.deliveries.find(filter, { sort: { state: 1, dueAt: 1 }, limit: want - found.length, projection: { webhookId: 1 } });
		if (due.length === 0) break;
		for (const delivery of due) if (!found.includes(delivery.webhookId)) found.push(delivery.webhookId);
	}
	return found.slice(0, want);
}

/** Age in ms of the oldest pending delivery, 0 when none: the queue age to alert on. */
export async function queueAgeMs(deps: WorkerDeps): Promise<number> {
	const [oldest] = await deps.deliveries.find({ state: "pending" }, { sort: { state: 1, createTime: 1 }, limit: 1, projection: { createTime: 1 } });
	return oldest === undefined ? 0 : Math.max(0, deps.now() - oldest.createTime);
}

/** How long in ms the most overdue pending delivery has been due, 0 when none: how far the workers are behind. */
export async function queueLagMs(deps: WorkerDeps): Promise<number> {
	const now = deps.now();
	const [overdue] = await deps.deliveries.find({ state: "pending", dueAt: { $lte: now } }, { sort: { state: 1, dueAt: 1 }, limit: 1, projection: { dueAt: 1 } });
	return overdue === undefined ? 0 : now - overdue.dueAt;
}

/** Retired webhooks looked at per query. */
const RETIRED_BATCH = 100;

/**
 * Removes the retired webhooks (their user deleted) with no delivery left pending, and their
 * lanes; the others wait until their deliveries are sent or dropped. Returns how many it removed.
 */
export async function removeRetired(deps: WorkerDeps): Promise<number> {
	let removed = 0;
	let after = "";
	for (;;) {
		const retired = await deps.webhooks.find({ retired: true, _id: { $gt: after } }, { sort: { retired: 1, _id: 1 }, limit: RETIRED_BATCH, projection: { _id: 1 } });
		if (retired.length === 0) return removed;
		for (const { _id: webhookId } of retired) {
			if ((await deps.deliveries.count({ webhookId, state: "pending" })) > 0) continue;
			removed += await deps.webhooks.remove({ _id: webhookId, retired: true });
			await deps.lanes.remove({ _id: webhookId });
		}
		after = retired[retired.length - 1]!._id;
	}
}

/** Removes finished deliveries kept past FINISHED_KEPT_MS; returns how many. */
export async function forgetFinished(deps: WorkerDeps): Promise<number> {
	const before = deps.now() - FINISHED_KEPT_MS;
	let removed = 0;
	for (const state of ["delivered", "dropped"] as const) removed += await deps.deliveries.remove({ state, doneAt: { $lt: before } }, { multi: true });
	return removed;
}
