import type { Middleware, ServiceBroker } from "moleculer";

/**
 * What the service does for its users, beside the broker's request metrics (README
 * "Operations"). Exposed as `memos_created_total{kind}`, `memos_attachment_stored_bytes_total` and
 * `memos_list_cache_lookups_total{result}`.
 * Queue depths come from Moleculer's bulkhead (`moleculer_request_bulkhead_queue_size{action}`).
 */
const MEMOS_CREATED = "memos.created";
const ATTACHMENT_BYTES = "memos.attachment.stored";
const LIST_CACHE_LOOKUPS = "memos.list.cache.lookups";

/** Registers the business metrics on every broker with metrics on. */
export const BusinessMetricsMiddleware: Middleware = {
	name: "BusinessMetrics",
	created(broker: ServiceBroker) {
		if (!broker.isMetricsEnabled()) return;
		broker.metrics.register({ type: "counter", name: MEMOS_CREATED, labelNames: ["kind"], description: "Memos and comments created" });
		broker.metrics.register({ type: "counter", name: ATTACHMENT_BYTES, unit: "byte", description: "Bytes of attachment contents stored (uploads, whole and chunked)" });
		broker.metrics.register({
			type: "counter",
			name: LIST_CACHE_LOOKUPS,
			labelNames: ["result"],
			description: "ListMemos requests by how the response cache served them: hit, miss (computed), bypass (not cacheable)"
		});
	}
} as Middleware;

export function countMemoCreated(broker: ServiceBroker, kind: "memo" | "comment"): void {
	if (broker.isMetricsEnabled()) broker.metrics.increment(MEMOS_CREATED, { kind });
}

export function countAttachmentBytes(broker: ServiceBroker, bytes: number): void {
	if (broker.isMetricsEnabled() && bytes > 0) broker.metrics.increment(ATTACHMENT_BYTES, undefined, bytes);
}

/** How the ListMemos response cache served a request: kept, computed, or not cacheable. */
export type ListCacheResult = "hit" | "miss" | "bypass";

export function countListCacheLookup(broker: ServiceBroker, result: ListCacheResult): void {
	if (broker.isMetricsEnabled()) broker.metrics.increment(LIST_CACHE_LOOKUPS, { result });
}
