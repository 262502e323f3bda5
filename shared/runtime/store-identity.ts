import type { Middleware, Service, ServiceBroker } from "moleculer";

/**
 * Replicas of a service must answer from one store (issue 16.7): the same MongoDB, or the same
 * SQLite file on one host. Each process advertises in its node metadata, under this key, the
 * identity of the document store each of its services uses (`{ memos: "<id>" }`); a service
 * does not start beside replicas that advertise another.
 */
export const STORE_IDENTITIES_KEY = "documentStores";

/** The store identity a node advertises for `service`, if any (services without a document store have none). */
export function advertisedStoreIdentity(metadata: unknown, service: string): string | undefined {
	const stores = typeof metadata === "object" && metadata !== null ? (metadata as Record<string, unknown>)[STORE_IDENTITIES_KEY] : undefined;
	const value = typeof stores === "object" && stores !== null ? (stores as Record<string, unknown>)[service] : undefined;
	return typeof value === "string" ? value : undefined;
}

/** The node metadata advertising `identity` for each of `services`. */
export function storeIdentitiesMetadata(identity: string, services: readonly string[]): Record<string, unknown> {
	return { [STORE_IDENTITIES_KEY]: Object.fromEntries(services.map(name => [name, identity])) };
}

/** The other nodes offering `service` whose advertised store is not `identity`, with theirs. */
export function replicasOnOtherStores(broker: ServiceBroker, service: string, identity: string): { nodeID: string; identity: string }[] {
	const nodeIDs = new Set(
		broker.registry
			.getServiceList({ onlyAvailable: true, skipInternal: true })
			.flatMap(s => (s.name === service && s.nodeID !== undefined && s.nodeID !== broker.nodeID ? [s.nodeID] : []))
	);
	const found: { nodeID: string; identity: string }[] = [];
	for (const nodeID of [...nodeIDs].sort()) {
		const theirs = advertisedStoreIdentity(broker.registry.nodes.get(nodeID)?.metadata, service);
		if (theirs !== undefined && theirs !== identity) found.push({ nodeID, identity: theirs });
	}
	return found;
}

export class StoreMismatchError extends Error {
	constructor(service: string, identity: string, others: { nodeID: string; identity: string }[]) {
		const where = others.map(o => `${o.nodeID} (store ${o.identity})`).join(", ");
		super(
			`${service} refused to start: its replicas on ${where} use another store than this node's (store ${identity}); ` +
				"replicas of a service must share one store: the same MONGO_URL, or the same DATA_DIR on one host"
		);
		this.name = "StoreMismatchError";
	}
}

/**
 * Checks each service that uses the document store before it starts, when the transporter has
 * connected and the nodes already on the bus have announced themselves (Moleculer waits for
 * their INFO packets). Replicas started at the same moment can miss each other: the cluster
 * view flags such a pair (services/gateway/cluster-view.ts).
 */
export function storeIdentityMiddleware(identity: string, servicesWithStore: readonly string[]): Middleware {
	return {
		name: "StoreIdentity",
		async serviceStarting(service: Service) {
			if (!servicesWithStore.includes(service.name)) return;
			const others = replicasOnOtherStores(service.broker, service.name, identity);
			if (others.length > 0) throw new StoreMismatchError(service.name, identity, others);
		}
	};
}
