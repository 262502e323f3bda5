import type { ServiceBroker } from "moleculer";
import type { BlobStore } from "../blob/blob-store.js";
import type { DocumentStore } from "../store/document-store.js";
import type { Config } from "./config.js";
import type { Shutdown } from "./shutdown.js";

/**
 * What a process opens once and its services share: the document store, the blob store and
 * the configuration. Kept per broker (not in module state) so tests can run several nodes
 * in one process.
 */
export interface Resources {
	config: Config;
	documents?: DocumentStore;
	blobs?: BlobStore;
	/** Set by startNode; absent for a bare broker in service tests. */
	shutdown?: Shutdown;
}

const byBroker = new WeakMap<ServiceBroker, Resources>();

export function attachResources(broker: ServiceBroker, resources: Resources): void {
	byBroker.set(broker, resources);
}

export function resourcesOf(broker: ServiceBroker): Resources {
	const resources = byBroker.get(broker);
	if (!resources) throw new Error("no resources attached to this broker");
	return resources;
}

export function documentsOf(broker: ServiceBroker): DocumentStore {
	const documents = resourcesOf(broker).documents;
	if (!documents) throw new Error("this node opened no document store");
	return documents;
}

export function blobsOf(broker: ServiceBroker): BlobStore {
	const blobs = resourcesOf(broker).blobs;
	if (!blobs) throw new Error("this node opened no blob store");
	return blobs;
}
