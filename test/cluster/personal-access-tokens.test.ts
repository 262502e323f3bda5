import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { CATALOG } from "../../services/catalog.js";
import { authActions } from "../../services/auth/auth.contract.js";
import { loadConfig } from "../../shared/runtime/config.js";
import { startNode, type NodeHandle } from "../../shared/runtime/node.js";
import type { DocumentStore } from "../../shared/store/document-store.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { describeCluster, startCluster, type Cluster } from "../support/cluster.js";
import { waitFor } from "../support/processes.js";
import { authHeaders, signIn, signUp, type Session } from "../support/users.js";

/**
 * Contract 16 with two auth nodes over a real nats-server: a personal access token outlives the
 * access-token lifetime on both, and a deletion reaches both within 3 s. The nodes run in this
 * process so that the test can move the auth services' clocks past the 15-minute lifetime and ask
 * each auth node by id; they share one document store, as replicas share MongoDB in production
 * (MongoDB itself when MONGO_URL is set).
 */

const DELETION_BOUND_MS = 3_000;
const ACCESS_TOKEN_LIFETIME_MS = 15 * 60 * 1000;

describeCluster("personal access tokens on two auth nodes", () => {
	let cluster: Cluster;
	let dataRoot: string;
	let shared: DocumentStore | undefined;
	const nodes: Record<string, NodeHandle> = {};
	let gatewayUrl: string;
	let admin: Session;
	/** Added to the auth services' clocks. */
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
	const authNodes = ["auth-a", "auth-b"];

	/** What auth node `nodeId` answers for `token`: the caller's username, or the error's type. */
	async function verifyOn(nodeId: string, token: string): Promise<string> {
		try {
			const caller = await gateway().broker.call(authActions.verifyAccessToken.name, { token }, { nodeID: nodeId });
			return (caller as { username: string }).username;
		} catch (err) {
			return (err as { type?: string }).type ?? String(err);
		}
	}

	beforeAll(async () => {
		cluster = await startCluster("memos-pat-");
		dataRoot = await mkdtemp(path.join(os.tmpdir(), "memos-pat-nodes-"));
		shared = process.env.MONGO_URL ? undefined : new SqliteDocumentStore({ dir: null });
		await start("gateway", "gateway");
		await start("backend", "memos,attachments,spaces,instance");
		for (const id of authNodes) {
			const node = await start(id, "auth");
			(node.broker.getLocalService("auth") as unknown as { clock: () => number }).clock = () => Date.now() + shift;
		}
		const server = (gateway().broker.getLocalService("gateway") as unknown as { server: { address(): AddressInfo } }).server;
		gatewayUrl = `http://127.0.0.1:${server.address().port}`;
		await waitFor("both auth nodes and the backend seen by the gateway", async () => {
			const nodeIds = new Set((gateway().broker.registry.getServiceList({ onlyAvailable: true }) as { name: string; nodeID: string }[]).filter(s => s.name === "auth").map(s => s.nodeID));
			const backend = (await fetch(`${gatewayUrl}/api/v1/instance/profile`)).status === 200;
			return backend && authNodes.every(id => nodeIds.has(id)) ? true : undefined;
		});
		await signUp(gatewayUrl, "admin");
		admin = await signIn(gatewayUrl, "admin");
	});

	afterAll(async () => {
		for (const id of ["gateway", "backend", ...authNodes]) await nodes[id]?.stop();
		await shared?.close();
		await cluster?.stop();
		await rm(dataRoot, { recursive: true, force: true });
	});

	test("a PAT works on both nodes past the access-token lifetime and stops on both within 3 s of its deletion", async () => {
		const created = await fetch(`${gatewayUrl}/api/v1/users/admin/personalAccessTokens`, { method: "POST", headers: authHeaders(admin), body: JSON.stringify({ description: "bot" }) });
		expect(created.status).toBe(200);
		const { token, personalAccessToken } = (await created.json()) as { token: string; personalAccessToken: { name: string } };

		shift = ACCESS_TOKEN_LIFETIME_MS + 60_000;
		for (const id of authNodes) {
			expect(await verifyOn(id, admin.accessToken)).toBe("UNAUTHENTICATED");
			expect(await verifyOn(id, token)).toBe("admin");
		}
		expect((await fetch(`${gatewayUrl}/api/v1/memos`, { headers: authHeaders(admin) })).status).toBe(401);
		expect((await fetch(`${gatewayUrl}/api/v1/memos`, { headers: authHeaders(token) })).status).toBe(200);

		// Both nodes hold the token in their caches now; the deletion goes to one of them.
		const deleted = await fetch(`${gatewayUrl}/api/v1/${personalAccessToken.name}`, { method: "DELETE", headers: authHeaders(token) });
		expect(deleted.status).toBe(200);
		const deletedAt = Date.now();
		const refusedBy = new Set<string>();
		// Kept outside the probe: waitFor treats a probe's failure as "not yet".
		const lateAcceptances: string[] = [];
		await waitFor("both auth nodes to refuse the deleted token", async () => {
			for (const id of authNodes) {
				const askedAt = Date.now();
				const answer = await verifyOn(id, token);
				if (answer === "UNAUTHENTICATED") refusedBy.add(id);
				// Whatever the machine's load, no node may accept it when asked after the bound.
				else if (askedAt - deletedAt >= DELETION_BOUND_MS) lateAcceptances.push(`${id} accepted it ${askedAt - deletedAt} ms after its deletion`);
			}
			return refusedBy.size === authNodes.length || lateAcceptances.length > 0 ? true : undefined;
		});
		expect(lateAcceptances).toEqual([]);
		for (const id of authNodes) expect(await verifyOn(id, token)).toBe("UNAUTHENTICATED");
		expect((await fetch(`${gatewayUrl}/api/v1/memos`, { headers: authHeaders(token) })).status).toBe(401);
	});
});
