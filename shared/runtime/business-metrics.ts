import type { Middleware, ServiceBroker } from "moleculer";

/**
 * What the service does for its users, beside the broker's request metrics (README
 * "Operations"). Exposed as `memos_created_total{kind}` and `memos_attachment_stored_bytes_total`.
 * Queue depths come from Moleculer's bulkhead (`moleculer_request_bulkhead_queue_size{action}`).
 */
const MEMOS_CREATED = "memos.created";
const ATTACHMENT_BYTES = "memos.attachment.stored";

/** Registers the business metrics on every broker with metrics on. */
export const BusinessMetricsMiddleware: Middleware = {
	name: "BusinessMetrics",
	created(broker: ServiceBroker) {
		if (!broker.isMetricsEnabled()) return;
		broker.metrics.register({ type: "counter", name: MEMOS_CREATED, labelNames: ["kind"], description: "Memos and comments created" });
		broker.metrics.register({ type: "counter", name: ATTACHMENT_BYTES, unit: "byte", description: "Bytes of attachment contents stored (uploads, whole and chunked)" });
	}
} as Middleware;

export function countMemoCreated(broker: ServiceBroker, kind: "memo" | "comment"): void {
	if (broker.isMetricsEnabled()) broker.metrics.increment(MEMOS_CREATED, { kind });
}

export function countAttachmentBytes(broker: ServiceBroker, bytes: number): void {
	if (broker.isMetricsEnabled() && bytes > 0) broker.metrics.increment(ATTACHMENT_BYTES, undefined, bytes);
}
