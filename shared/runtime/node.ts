import path from "node:path";
import { ServiceBroker, type ServiceSchema } from "moleculer";
import type { BlobStore } from "../blob/blob-store.js";
import { openBlobStore } from "../blob/open-blob-store.js";
import type { DocumentStore } from "../store/document-store.js";
import { describeImport, type NedbImport } from "../store/nedb-import.js";
import { IndexCheckingStore } from "../store/index-check.js";
import { openDocumentStore } from "../store/open-store.js";
import { brokerOptions } from "./broker-options.js";
import { checkBusAccess } from "./bus-check.js";
import type { Config, ServiceName } from "./config.js";
import { HealthServer } from "./health-server.js";
import { watchNodeLiveness } from "./node-liveness.js";
import { readinessChecks } from "./readiness.js";
import { attachResources } from "./resources.js";
import { Shutdown } from "./shutdown.js";
import { storeIdentitiesMetadata, storeIdentityMiddleware } from "./store-identity.js";

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
	/**
	 * Stops accepting, drains in-flight calls and requests, then closes the broker, the stores
	 * and the health server; at SHUTDOWN_TIMEOUT_MS every connection is closed, whatever the
	 * clients do.
	 */
	stop(): Promise<void>;
}

export interface NodeOverrides {
	/** Stores made by the caller (tests: SQLite in memory); closed by the node on stop. */
	documents?: DocumentStore;
	blobs?: BlobStore;
}

/** A store operation ends (on MongoDB, by maxTimeMS) a little before the call that waits for it times out. */
export function storeQueryTimeoutMs(config: Pick<Config, "requestTimeoutMs">): number {
	return Math.max(1000, config.requestTimeoutMs - 2000);
}

/** Opens what the configured services need, starts them and the health server. */
export async function startNode(config: Config, catalog: Catalog, overrides: NodeOverrides = {}): Promise<NodeHandle> {
	const entries = config.services.map(name => catalog[name]);
	await checkBusAccess(config);
	let imported: NedbImport | undefined;
	const upgraded: { line: string; level: "info" | "warn" }[] = [];
	const opened = entries.some(e => e.documents)
		? (overrides.documents ?? (await openDocumentStore({ mongoUrl: config.mongoUrl, queryTimeoutMs: storeQueryTimeoutMs(config), dir: path.join(config.dataDir, "db"), onImport: done => (imported = done), onUpgrade: (line, level) => upgraded.push({ line, level }) })))
		: undefined;
	// On MongoDB indexes are built by `--migrate` before a deploy rolls; services only check them.
	const documents = opened?.driver === "mongodb" && !(opened instanceof IndexCheckingStore) ? new IndexCheckingStore(opened) : opened;
	let blobs: BlobStore | undefined;
	try {
		blobs = entries.some(e => e.blobs) ? (overrides.blobs ?? (await openBlobStore({ s3: config.s3, dir: path.join(config.dataDir, "blobs") }))) : undefined;
	} catch (err) {
		await documents?.close();
		throw err;
	}

	const options = await brokerOptions(config);
	if (documents) {
		const withStore = config.services.filter(name => catalog[name].documents);
		options.metadata = { ...options.metadata, ...storeIdentitiesMetadata(documents.identity, withStore) };
		options.middlewares = [...(options.middlewares ?? []), storeIdentityMiddleware(documents.identity, withStore)];
	}
	const broker = new ServiceBroker(options);
	if (imported) broker.getLogger("store").info(describeImport(imported));
	for (const { line, level } of upgraded) broker.getLogger("store")[level](line);
	const shutdown = new Shutdown();
	attachResources(broker, { config, documents, blobs, shutdown });
	for (const entry of entries) broker.createService(entry.schema);

	const health = new HealthServer(() => readinessChecks(broker), shutdown);
	const closeStores = async () => {
		await Promise.allSettled([documents?.close(), blobs?.close()]);
	};
	let healthPort: number;
	try {
		await broker.start();
		if (documents instanceof IndexCheckingStore) {
			const missing = await documents.missingIndexes();
			if (missing.length > 0) broker.getLogger("store").error(`${missing.length} indexes are missing, not ready until \`--migrate\` has built them: ${missing.join("; ")}`);
		}
		healthPort = await health.listen(config.healthPort, config.host);
	} catch (err) {
		await broker.stop().catch(() => undefined);
		await closeStores();
		await health.close();
		throw err;
	}

	const liveness = await watchNodeLiveness(broker);

	let stopping: Promise<void> | undefined;
	return {
		broker,
		healthPort,
		stop() {
			stopping ??= (async () => {
				const deadline = setTimeout(() => {
					broker.logger.warn(`Shutdown deadline (${config.shutdownTimeoutMs} ms) reached: closing every connection.`);
					shutdown.force();
				}, config.shutdownTimeoutMs);
				try {
					liveness.stop();
					// The tracker waits for calls in flight (up to the same deadline) while the servers drain.
					await Promise.all([shutdown.begin(), broker.stop()]);
					await closeStores();
				} finally {
					clearTimeout(deadline);
					await health.close();
				}
			})();
			return stopping;
		}
	};
}
