import { ConfigError, loadConfig } from "../shared/runtime/config.js";
import { pinHeapGrowth } from "../shared/runtime/heap-growth.js";
import { migrate } from "../shared/runtime/migrate.js";
import { startNode } from "../shared/runtime/node.js";
import { CATALOG } from "./catalog.js";

/** Time after the shutdown deadline for the broker to leave NATS and the stores to close. */
const SHUTDOWN_GRACE_MS = 2000;

/**
 * The process entry point of both run modes: `SERVICES` decides what this process runs;
 * `--migrate` builds every service's indexes and exits (the deploy step before a rollout).
 */
async function main(): Promise<void> {
	let config;
	try {
		config = loadConfig();
	} catch (err) {
		if (err instanceof ConfigError) {
			console.error(`memos: invalid configuration: ${err.message}`);
			process.exit(2);
		}
		throw err;
	}
	// For good only where stream chunks cross NATS: an embedded process takes it while a transfer runs, and keeps its memory bound (heap-growth.ts).
	if (config.transporter !== undefined) pinHeapGrowth();

	if (process.argv.includes("--migrate")) {
		try {
			await migrate(config, CATALOG, line => process.stdout.write(`${line}\n`));
		} catch (err) {
			console.error(`memos: migration failed: ${err instanceof Error ? err.message : String(err)}`);
			process.exit(1);
		}
		process.exit(0);
	}

	let node;
	try {
		node = await startNode(config, CATALOG);
	} catch (err) {
		console.error(`memos: start-up failed: ${err instanceof Error ? err.message : String(err)}`);
		process.exit(1);
	}

	const shutdown = (signal: string) => {
		node.broker.logger.info(`${signal} received, shutting down`);
		// The node closes every connection at the deadline; should anything else still hang
		// (a service's stop, a store's close), the process goes anyway.
		setTimeout(() => {
			console.error(`memos: shutdown did not finish within ${config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS} ms, exiting`);
			process.exit(1);
		}, config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS).unref();
		node.stop().then(
			() => process.exit(0),
			err => {
				console.error(`memos: shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
				process.exit(1);
			}
		);
	};
	process.once("SIGTERM", () => shutdown("SIGTERM"));
	process.once("SIGINT", () => shutdown("SIGINT"));
}

void main();
