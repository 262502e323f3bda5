import type { BrokerOptions, ServiceBroker } from "moleculer";
import type { AnyActionRef } from "../contract.js";

/**
 * Failures of the cluster rather than of the request: Moleculer raises these when a call
 * cannot reach a node or gets no answer. A client sees UNAVAILABLE (or RESOURCE_EXHAUSTED for
 * a full queue) with Retry-After, never INTERNAL (services/gateway/status.ts).
 */
export const BROKER_FAILURES: Readonly<Record<string, "unavailable" | "exhausted">> = {
	ServiceNotFoundError: "unavailable",
	ServiceNotAvailableError: "unavailable",
	RequestRejectedError: "unavailable",
	RequestTimeoutError: "unavailable",
	RequestSkippedError: "unavailable",
	BrokerDisconnectedError: "unavailable",
	MaxCallLevelError: "unavailable",
	ProtocolVersionMismatchError: "unavailable",
	GracefulStopTimeoutError: "unavailable",
	QueueIsFullError: "exhausted"
};

function errorName(err: unknown): string {
	const name = (err as { name?: unknown } | null)?.name;
	return typeof name === "string" ? name : "";
}

/**
 * Failures after which another node may well succeed: the node left (rejected), the chosen
 * endpoint is unavailable (circuit open) or no longer has the service (stopping). Not a
 * time-out (the call may still be running, and a retry would double the client's wait), nor
 * this node's own NATS outage (no other node is reachable either). Only calls the route table
 * marks idempotent are retried at all.
 */
const RETRYABLE = new Set(["RequestRejectedError", "ServiceNotAvailableError", "ServiceNotFoundError"]);

export function isRetryableFailure(err: unknown): boolean {
	return RETRYABLE.has(errorName(err));
}

/**
 * Whether `err`, from a call of `action`, says that no node offers the action while nodes of
 * its service run: those nodes predate it (a rolling deploy), rather than the service being down.
 */
export function isActionNotYetOffered(broker: Pick<ServiceBroker, "registry">, action: AnyActionRef, err: unknown): boolean {
	if (errorName(err) !== "ServiceNotFoundError") return false;
	return broker.registry.getServiceList({ onlyAvailable: true }).some(service => service.name === action.service);
}

/** Attempts after the first for an idempotent call; other calls are never retried. */
export const IDEMPOTENT_RETRIES = 2;

/**
 * Moleculer's retry policy, circuit breaker and bulkhead for every broker (issue 16.2).
 * Retries are off unless a call asks for them (`retries` call option, set by the gateway from
 * the route table), so no write is repeated blindly. The breaker opens per node and action
 * once half of at least 20 calls in a minute failed with a server-side error (code >= 500:
 * time-outs, rejections, INTERNAL, UNAVAILABLE), and lets one call through after 5 s; while it
 * is open, calls go to the other nodes. Bulkheads are per action where a service calls out
 * (ai.transcribe).
 */
export const FAILURE_POLICIES: Pick<BrokerOptions, "retryPolicy" | "circuitBreaker"> = {
	retryPolicy: { enabled: true, retries: 0, delay: 100, maxDelay: 400, factor: 2, check: err => isRetryableFailure(err) },
	circuitBreaker: {
		enabled: true,
		threshold: 0.5,
		minRequestCount: 20,
		windowTime: 60,
		halfOpenTime: 5000,
		check: err => typeof (err as { code?: unknown }).code === "number" && (err as { code: number }).code >= 500
	}
};
