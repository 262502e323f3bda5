import type { Doc } from "../../../shared/store/document-store.js";

/**
 * One webhook delivery: a memo change to send to one webhook (contract 17). Written to the
 * document store before its first attempt (record-deliveries.ts), then taken through its
 * attempts by the delivery worker (delivery-worker.ts) until a 2xx answer or its 24 hours end.
 * `_id` is `<changeId>-<webhookId>`, so recording a change twice records it once.
 */
export interface DeliveryDoc extends Doc {
	webhookId: string;
	changeId: string;
	/** Upstream's `activityType`: `memos.memo.created`, `memos.memo.updated`, `memos.memo.deleted`, `memos.memo.comment.created`. */
	activityType: string;
	/** `users/{username}` of the memo's creator, as the change found it. */
	creator: string;
	/** The Memo message as the change left it, JSON text (its maps may hold keys a document store refuses). */
	memo: string;
	/** When the change was made (epoch ms): one webhook's deliveries are sent in this order, then by `_id`. */
	changeTime: number;
	/** When the delivery was recorded (epoch ms): its 24 hours, and the queue age, count from here. */
	createTime: number;
	state: DeliveryState;
	/** Attempts started so far; taking attempt n+1 is a conditional update on n, so no attempt is sent twice. */
	attempts: number;
	/** Not tried again before this time (epoch ms). */
	dueAt: number;
	/** When it was delivered or dropped (epoch ms); finished deliveries are kept a while to recognise a change recorded again. */
	doneAt: number | null;
	/** The last attempt's outcome, for operators (`HTTP 503`, `timed out`); never a secret. */
	lastResult: string | null;
}

export type DeliveryState = "pending" | "delivered" | "dropped";

export const WEBHOOK_DELIVERIES = "auth_webhook_deliveries";

/**
 * One lease per webhook (`_id` = webhook id): the delivery worker holding it is the only one
 * sending that webhook's deliveries, one at a time and in order, until `leaseUntil`.
 */
export interface LaneDoc extends Doc {
	leaseUntil: number;
	holder: string;
}

export const WEBHOOK_LANES = "auth_webhook_lanes";
