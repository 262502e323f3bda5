import type { DocumentStore } from "../../../shared/store/document-store.js";
import { WEBHOOK_DELIVERIES } from "./delivery-doc.js";
import { WEBHOOKS } from "./webhook-doc.js";

/** The indexes of webhooks and their deliveries, made with the auth service's (auth-indexes.ts) and by the delivery worker's start. */
export async function ensureWebhookIndexes(documents: DocumentStore): Promise<void> {
	// A user's webhooks in list order; the webhooks of a change's creator.
	await documents.collection(WEBHOOKS).ensureIndex({ fields: { userId: 1, createTime: 1, _id: 1 } });
	// The webhooks of deleted users, removed once drained.
	await documents.collection(WEBHOOKS).ensureIndex({ fields: { retired: 1, _id: 1 } });
	const deliveries = documents.collection(WEBHOOK_DELIVERIES);
	// A webhook's next delivery (the head of its lane), and its pending ones.
	await deliveries.ensureIndex({ fields: { webhookId: 1, state: 1, changeTime: 1, _id: 1 } });
	// Due deliveries, oldest due first.
	await deliveries.ensureIndex({ fields: { state: 1, dueAt: 1 } });
	// The oldest pending delivery (queue age).
	await deliveries.ensureIndex({ fields: { state: 1, createTime: 1 } });
	// Finished deliveries past their keeping time.
	await deliveries.ensureIndex({ fields: { state: 1, doneAt: 1 } });
}
