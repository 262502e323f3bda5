import type { ServiceBroker } from "moleculer";
import { REQUIRED_SERVICES } from "./config.js";
import { IndexCheckingStore } from "../store/index-check.js";
import { probeWritable } from "./disk-check.js";
import type { ReadinessCheck } from "./health-server.js";
import { resourcesOf } from "./resources.js";

/** The names of required services that no available node offers. */
export function missingServices(broker: ServiceBroker): string[] {
	const available = new Set(
		broker.registry.getServiceList({ onlyAvailable: true, skipInternal: true }).map(s => s.name)
	);
	return REQUIRED_SERVICES.filter(name => !available.has(name));
}

/**
 * What `/readyz` checks on this process: its own stores and transporter (disconnected from the
 * moment NATS is lost, see nats-transporter.ts); the gateway also checks every required service.
 */
export function readinessChecks(broker: ServiceBroker): ReadinessCheck[] {
	const { documents, blobs, config } = resourcesOf(broker);
	const checks: ReadinessCheck[] = [];
	if (documents) checks.push({ name: "documents", check: () => documents.ping() });
	if (documents instanceof IndexCheckingStore) {
		checks.push({
			name: "indexes",
			check: async () => {
				const missing = await documents.missingIndexes();
				if (missing.length > 0) throw new Error(`missing indexes (run --migrate): ${missing.join("; ")}`);
			}
		});
	}
	if (blobs) checks.push({ name: "blobs", check: () => blobs.ping() });
	// Embedded stores write under DATA_DIR: a full or failing disk there fails their writes.
	if ((documents && !config.mongoUrl) || (blobs && !config.s3)) checks.push({ name: "disk", check: () => probeWritable(config.dataDir) });
	if (config.transporter) {
		checks.push({
			name: "transporter",
			check: async () => {
				if (!broker.transit?.connected) throw new Error("transporter disconnected");
			}
		});
	}
	if (config.services.includes("gateway")) {
		for (const name of REQUIRED_SERVICES) {
			checks.push({
				name,
				check: async () => {
					if (missingServices(broker).includes(name)) throw new Error(`${name} has no available node`);
				}
			});
		}
	}
	return checks;
}
