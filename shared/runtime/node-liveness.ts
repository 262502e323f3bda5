import type { ServiceBroker } from "moleculer";

/**
 * Fast detection of a node that left NATS (issue 16.1).
 *
 * Moleculer's heartbeats find a dead node only after `heartbeatTimeout`, counted in whole
 * seconds of uptime and checked every `heartbeatTimeout`: 15-30 s with the defaults, still
 * 2-4 s with 1 s beats, at the price of a beat from every node to every node each second.
 * NATS knows sooner: when a process dies its connection closes and its subscriptions go with
 * it. So every PROBE_INTERVAL_MS each node asks each remote node it holds as available on
 * that node's ALIVE subject (nats-transporter.ts); NATS answers "no responders" only when the
 * node's connection is gone, and the node is then marked disconnected: its services leave the
 * registry (calls go to the other replicas, /health/cluster shows the loss) and the calls in
 * flight to it are rejected at once with RequestRejectedError, which the retry policy moves
 * to another node for idempotent operations. Measured on loopback: a SIGKILLed replica is out
 * of the gateway's registry within one interval plus a round trip.
 *
 * A node that is alive but slow keeps its subscription, so its probe merely times out and
 * nothing happens: a busy event loop is never mistaken for a death. Losses NATS cannot see
 * (a host cut off without closing its connections, a frozen process) are still found by the
 * heartbeats. `disableBalancer` (NATS queue groups choosing the node) was the other way: new
 * calls would avoid a dead node at once, but calls in flight would still wait their time-out,
 * the registry and health would still list the node, and Moleculer's per-node circuit breaker
 * and `nodeID` routing (upload sessions) would lose their meaning.
 */
export const PROBE_INTERVAL_MS = 500;
/** A probe slower than this is "unknown"; it never marks a node gone. */
const PROBE_TIMEOUT_MS = 1000;

export interface LivenessWatch {
	stop(): void;
}

/** Starts probing the other nodes; nothing to do without a NATS transporter. */
export async function watchNodeLiveness(broker: ServiceBroker): Promise<LivenessWatch> {
	const tx = broker.transit?.tx;
	if (tx === undefined) return { stop() {} };
	// Not loaded by a process without a transporter (broker-options.ts).
	const { NatsTransporter } = await import("./nats-transporter.js");
	if (!(tx instanceof NatsTransporter)) return { stop() {} };
	const probing = new Set<string>();

	const probe = async (nodeID: string) => {
		probing.add(nodeID);
		try {
			if ((await tx.probe(nodeID, PROBE_TIMEOUT_MS)) === "gone" && broker.registry.nodes.get(nodeID)?.available) {
				broker.logger.warn(`Node '${nodeID}' has no NATS connection any more: removed from the registry.`);
				tx.nodeGone(nodeID);
			}
		} finally {
			probing.delete(nodeID);
		}
	};

	const timer = setInterval(() => {
		for (const node of broker.registry.nodes.toArray()) {
			if (!node.local && node.available && !probing.has(node.id)) void probe(node.id);
		}
	}, PROBE_INTERVAL_MS);
	timer.unref();
	return { stop: () => clearInterval(timer) };
}
