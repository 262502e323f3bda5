import { DuplicateKeyError, type Collection } from "../../../shared/store/document-store.js";
import type { MemoChangeRecord } from "../auth.contract.js";
import type { DeliveryDoc } from "./delivery-doc.js";
import type { WebhookDoc } from "./webhook-doc.js";

/** Upstream's activity type per memo change (internal/webhook, memo_service_webhooks.go). */
const ACTIVITY_TYPES: Record<MemoChangeRecord["event"], string> = {
	"memo.created": "memos.memo.created",
	"memo.updated": "memos.memo.updated",
	"memo.deleted": "memos.memo.deleted",
	"memo.comment.created": "memos.memo.comment.created"
};

export interface RecordDeps {
	webhooks: Collection<WebhookDoc>;
	deliveries: Collection<DeliveryDoc>;
	now(): number;
}

/**
 * Fans memo changes out to their recipients' webhooks: one delivery per (change, webhook that
 * existed when the change was made), written before any attempt. Recording a change again (the
 * memos service's relay after a crash) finds its deliveries already there and adds none.
 * Returns how many deliveries were added.
 */
export async function recordDeliveries(deps: RecordDeps, changes: readonly MemoChangeRecord[]): Promise<number> {
	if (changes.length === 0) return 0;
	const recipientIds = [...new Set(changes.map(change => change.recipientId))];
	const webhooks = await deps.webhooks.find({ userId: { $in: recipientIds } }, { projection: { userId: 1, createTime: 1 } });
	const now = deps.now();
	let added = 0;
	for (const change of changes) {
		const memo = JSON.stringify(change.memo);
		for (const webhook of webhooks) {
			if (webhook.userId !== change.recipientId || webhook.createTime > change.time) continue;
			try {
				await deps.deliveries.insert({
					_id: `${change.changeId}-${webhook._id}`,
					webhookId: webhook._id,
					changeId: change.changeId,
					activityType: ACTIVITY_TYPES[change.event],
					creator: change.creator,
					memo,
					changeTime: change.time,
					createTime: now,
					state: "pending",
					attempts: 0,
					dueAt: now,
					doneAt: null,
					lastResult: null
				});
				added++;
			} catch (err) {
				if (!(err instanceof DuplicateKeyError)) throw err;
			}
		}
	}
	return added;
}
