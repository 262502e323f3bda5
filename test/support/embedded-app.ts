import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../shared/runtime/config.js";
import { startNode, type NodeHandle } from "../../shared/runtime/node.js";
import { CATALOG } from "../../services/catalog.js";

export interface EmbeddedApp {
	node: NodeHandle;
	/** `http://127.0.0.1:<port>` of the gateway. */
	baseUrl: string;
	dataDir: string;
	stop(): Promise<void>;
}

/**
 * The embedded app (every service in one broker, no transporter) on ephemeral ports, with
 * its data in a temporary directory unless one is given (to test restarts).
 */
export async function startEmbeddedApp(env: Record<string, string> = {}, dataDir?: string): Promise<EmbeddedApp> {
	const dir = dataDir ?? (await mkdtemp(path.join(os.tmpdir(), "memos-app-")));
	const config = loadConfig({
		HOST: "127.0.0.1",
		PORT: "0",
		HEALTH_PORT: "0",
		METRICS_ENABLED: "false",
		LOG_LEVEL: "silent",
		DATA_DIR: dir,
		...env
	});
	const node = await startNode(config, CATALOG);
	const gateway = node.broker.getLocalService("gateway") as unknown as { server: { address(): AddressInfo } };
	const baseUrl = `http://127.0.0.1:${gateway.server.address().port}`;
	return {
		node,
		baseUrl,
		dataDir: dir,
		async stop() {
			await node.stop();
			if (!dataDir) await rm(dir, { recursive: true, force: true });
		}
	};
}
