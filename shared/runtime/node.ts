import path from "node:path";
import { ServiceBroker, type ServiceSchema } from "moleculer";
import type { BlobStore } from "../blob/blob-store.js";
import { openBlobStore } from "../blob/open-blob-store.js";
import type { DocumentStore } from "../store/document-store.js";
import { openDocumentStore } from "../store/open-store.js";
import { brokerOptions } from "./broker-options.js";
import { checkBusAccess } from "./bus-check.js";
import type { Config, ServiceName } from "./config.js";
import { HealthServer } from "./health-server.js";
import { readinessChecks } from "./readiness.js";
import { attachResources } from "./resources.js";

/** A service and the stores its process must open for it. */
// Each service types its own settings and methods; the catalog only names and starts them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyServiceSchema = ServiceSchema<any, any, any, any>;

export interface ServiceEntry {
	schema: AnyServiceSchema;
	documents?: boolean;
	blobs?: boolean;
}

export type Catalog = Record<ServiceName, ServiceEntry>;

export interface NodeHandle {
	broker: ServiceBroker;
	healthPort: number;
	/** Drains in-flight calls, then closes the broker, the stores and the health server. */
	stop(): Promise<void>;
}

export interface NodeOverrides {
	/** Stores made by the caller (tests: NeDB in memory); closed by the node on stop. */
	documents?: DocumentStore;
	blobs?: BlobStore;
}

/** Opens what the configured services need, starts them and the health server. */
export async function startNode(config: Config, catalog: Catalog, overrides: NodeOverrides = {}): Promise<NodeHandle> {
	const entries = config.services.map(name => catalog[name]);
	await checkBusAccess(config);
	const documents = entries.some(e => e.documents)
		? (overrides.documents ?? (await openDocumentStore({ mongoUrl: config.mongoUrl, dir: path.join(config.dataDir, "db") })))
		: undefined;
	let blobs: BlobStore | undefined;
	try {
		blobs = entries.some(e => e.blobs) ? (overrides.blobs ?? (await openBlobStore({ s3: config.s3, dir: path.join(config.dataDir, "blobs") }))) : undefined;
	} catch (err) {
		await documents?.close();
		throw err;
	}

	const broker = new ServiceBroker(brokerOptions(config));
	attachResources(broker, { config, documents, blobs });
	for (const entry of entries) broker.createService(entry.schema);

	const health = new HealthServer(() => readinessChecks(broker));
	const closeStores = async () => {
		await Promise.allSettled([documents?.close(), blobs?.close()]);
	};
	let healthPort: number;
	try {
		await broker.start();
		healthPort = await health.listen(config.healthPort, config.host);
	} catch (err) {
		await broker.stop().catch(() => undefined);
		await closeStores();
		await health.close();
		throw err;
	}

	let stopping: Promise<void> | undefined;
	return {
		broker,
		healthPort,
		stop() {
			stopping ??= (async () => {
				health.markStopping();
				await broker.stop();
				await closeStores();
				await health.close();
			})();
			return stopping;
		}
	};
}
