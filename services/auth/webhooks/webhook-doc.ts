import type { Doc } from "../../../shared/store/document-store.js";

/**
 * A user's webhook (contract 17, upstream v0.30.0 UserWebhook), `_id` the webhook id of its
 * name `users/{username}/webhooks/{id}`. The signing secret is kept as given or generated: it
 * signs every delivery, and leaves the service only through GetUserWebhookSigningSecret.
 */
export interface WebhookDoc extends Doc {
	userId: string;
	url: string;
	displayName: string;
	signingSecret: string;
	createTime: number;
	updateTime: number;
	/**
	 * Set when its user was deleted: the user's last changes (their memos' deletions) are still
	 * delivered, then the delivery worker removes it (delivery-worker.ts, `removeRetired`).
	 */
	retired?: true;
}

export const WEBHOOKS = "auth_webhooks";

/** A user may register at most this many webhooks (each change of their memos is sent to each). */
export const MAX_WEBHOOKS_PER_USER = 20;
