import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { CATALOG } from "../../services/catalog.js";
import { authActions } from "../../services/auth/auth.contract.js";
import { loadConfig } from "../../shared/runtime/config.js";
import { startNode, type NodeHandle } from "../../shared/runtime/node.js";
import type { DocumentStore } from "../../shared/store/document-store.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { startCluster, type Cluster } from "./cluster.js";
import { waitFor } from "./processes.js";

/**
 * Two auth nodes over a real nats-server, with a gateway node and a node of the other services.
 * The nodes run in this process so that a test can move the auth services' clocks and ask each
 * auth node by id; they share one document store (a SQLite file under the data directory, or
 * MongoDB when MONGO_URL is set), as replicas share MongoDB in production.
 */
export interface AuthReplicas {
	gatewayUrl: string;
	authNodes: readonly string[];
	/** Added to both auth services' clocks and the gateway's. */
	shiftClocks(ms: number): void;
	/** What auth node `nodeId` answers for `token`: the caller's username, or the error's type. */
	verifyOn(nodeId: string, token: string): Promise<string>;
	/**
	 * Waits until every auth node refuses `token`, asking each in turn; answers the acceptances
	 * that came `boundMs` or later after `since` (a refusal later than the contract allows), so
	 * that the test asserts on them outside waitFor, whose probe failures read as "not yet".
	 */
	lateAcceptances(token: string, since: number, boundMs: number): Promise<string[]>;
	stop(): Promise<void>;
}

const AUTH_NODES = ["auth-a", "auth-b"] as const;

export async function startAuthReplicas(prefix: string): Promise<AuthReplicas> {
	const cluster: Cluster = await startCluster(prefix);
	const dataRoot = await mkdtemp(path.join(os.tmpdir(), `${prefix}nodes-`));
	const shared: DocumentStore | undefined = process.env.MONGO_URL ? undefined : new SqliteDocumentStore({ dir: path.join(dataRoot, "shared-store") });
	const nodes: Record<string, NodeHandle> = {};
	let shift = 0;

	async function start(nodeId: string, services: string): Promise<NodeHandle> {
		const config = loadConfig({
			SERVICES: services,
			NODE_ID: nodeId,
			TRANSPORTER: cluster.natsUrl,
			NATS_USER: cluster.natsUser,
			NATS_PASSWORD: cluster.natsPassword,
			HOST: "127.0.0.1",
			PORT: "0",
			HEALTH_PORT: "0",
			METRICS_ENABLED: "false",
			LOG_LEVEL: "silent",
			DATA_DIR: path.join(dataRoot, nodeId),
			...(process.env.MONGO_URL ? { MONGO_URL: process.env.MONGO_URL } : {})
		});
		const node = await startNode(config, CATALOG, shared ? { documents: shared } : {});
		nodes[nodeId] = node;
		return node;
	}

	const gateway = () => nodes.gateway as NodeHandle;

	async function verifyOn(nodeId: string, token: string): Promise<string> {
		try {
			const caller = await gateway().broker.call(authActions.verifyAccessToken.name, { token }, { nodeID: nodeId });
			return (caller as { username: string }).username;
		} catch (err) {
			return (err as { type?: string }).type ?? String(err);
		}
	}

	async function stop(): Promise<void> {
		for (const id of ["gateway", "backend", ...AUTH_NODES]) await nodes[id]?.stop();
		await shared?.close();
		await cluster.stop();
		await rm(dataRoot, { recursive: true, force: true });
	}

	try {
		const gatewayNode = await start("gateway", "gateway");
		// It keeps what auth said of an access token until the token's expiry, read on its own clock.
		(gatewayNode.broker.getLocalService("gateway") as unknown as { clock: () => number }).clock = () => Date.now() + shift;
		await start("backend", "memos,attachments,spaces,instance");
		for (const id of AUTH_NODES) {
			const node = await start(id, "auth");
			(node.broker.getLocalService("auth") as unknown as { clock: () => number }).clock = () => Date.now() + shift;
		}
		const server = (gateway().broker.getLocalService("gateway") as unknown as { server: { address(): AddressInfo } }).server;
		const gatewayUrl = `http://127.0.0.1:${server.address().port}`;
		await waitFor("both auth nodes and the backend seen by the gateway", async () => {
			const services = gateway().broker.registry.getServiceList({ onlyAvailable: true }) as { name: string; nodeID: string }[];
			const nodeIds = new Set(services.filter(s => s.name === "auth").map(s => s.nodeID));
			const backend = (await fetch(`${gatewayUrl}/api/v1/instance/profile`)).status === 200;
			return backend && AUTH_NODES.every(id => nodeIds.has(id)) ? true : undefined;
		});
		return {
			gatewayUrl,
			authNodes: AUTH_NODES,
			shiftClocks(ms: number): void {
				shift = ms;
			},
			verifyOn,
			async lateAcceptances(token: string, since: number, boundMs: number): Promise<string[]> {
				const refusedBy = new Set<string>();
				const late: string[] = [];
				await waitFor(`every auth node to refuse the token`, async () => {
					for (const id of AUTH_NODES) {
						const askedAt = Date.now();
						const answer = await verifyOn(id, token);
						if (answer === "UNAUTHENTICATED") refusedBy.add(id);
						// Whatever the machine's load, no node may accept it when asked after the bound.
						else if (askedAt - since >= boundMs) late.push(`${id} accepted it ${askedAt - since} ms after`);
					}
					return refusedBy.size === AUTH_NODES.length || late.length > 0 ? true : undefined;
				});
				return late;
			},
			stop
		};
	} catch (err) {
		await stop();
		throw err;
	}
}
