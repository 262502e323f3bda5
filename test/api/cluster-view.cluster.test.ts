import type { ClusterView } from "../../services/gateway/cluster-view.js";
import { buildOpenApi } from "../../services/gateway/openapi.js";
import { ROUTE_TABLE } from "../../services/gateway/route-table.js";
import { SERVICE_NAMES } from "../../shared/runtime/config.js";
import { describeCluster, startCluster, type Cluster } from "../support/cluster.js";
import { waitFor } from "../support/processes.js";
import { authHeaders, signIn, signUp, type Session } from "../support/users.js";

/**
 * The operational endpoints of the gateway in cluster mode: real nats-server, one OS process
 * per group of services, each running `node dist/services/main.js` as the container image does.
 */
describeCluster("cluster view, OpenAPI and reference page in cluster mode", () => {
	let cluster: Cluster;
	let gatewayUrl: string;
	let admin: Session;

	function startGroup(services: string) {
		return cluster.start(services, services, { NODE_ID: `${services.replace(/,/g, "-")}-node`, METRICS_ENABLED: "false", REQUEST_TIMEOUT_MS: "3000" });
	}

	const clusterView = () => fetch(`${gatewayUrl}/health/cluster`, { headers: authHeaders(admin) });

	beforeAll(async () => {
		cluster = await startCluster("memos-ops-cluster-");
		await startGroup("gateway");
		gatewayUrl = cluster.gatewayUrl;
		await startGroup("auth,instance,memos,attachments,spaces");
		await startGroup("ai");
		await startGroup("webhooks");
		await waitFor("gateway readiness", async () => ((await fetch(`${gatewayUrl}/readyz`)).status === 200 ? true : undefined));
		await signUp(gatewayUrl, "admin");
		admin = await signIn(gatewayUrl, "admin");
		// ai and webhooks are optional: the gateway is ready before their nodes join.
		await waitFor("every service in the cluster view", async () => (((await (await clusterView()).json()) as ClusterView).status === "ok" ? true : undefined));
	});

	afterAll(async () => {
		await cluster?.stop();
	});

	test("the cluster view lists every node with its services, and every service available", async () => {
		const res = await clusterView();
		expect(res.status).toBe(200);
		const body = (await res.json()) as ClusterView;
		expect(body.status).toBe("ok");
		expect(body.services).toEqual(SERVICE_NAMES.map(name => ({ name, available: true, nodeCount: 1, storeMismatch: false })));
		expect(body.nodes.map(n => [n.nodeId, n.available, n.services])).toEqual([
			["ai-node", true, ["ai"]],
			["auth-instance-memos-attachments-spaces-node", true, ["attachments", "auth", "instance", "memos", "spaces"]],
			["gateway-node", true, ["gateway"]],
			["webhooks-node", true, ["webhooks"]]
		]);
		for (const node of body.nodes) expect(Date.parse(node.lastHeartbeatTime)).not.toBeNaN();
	});

	test("the OpenAPI document and the reference page are served by the gateway process", async () => {
		const doc = await fetch(`${gatewayUrl}/openapi.json`);
		expect(doc.status).toBe(200);
		expect(await doc.json()).toEqual(JSON.parse(JSON.stringify(buildOpenApi(ROUTE_TABLE))));
		const page = await fetch(`${gatewayUrl}/api-docs`);
		expect(page.status).toBe(200);
		expect(await page.text()).toContain("/api-docs/swagger-ui-bundle.js");
		const bundle = await fetch(`${gatewayUrl}/api-docs/swagger-ui-bundle.js`);
		expect(bundle.status).toBe(200);
		await bundle.arrayBuffer();
	});

	test("when the only ai node stops, the view shows ai unavailable and its node offline; ai is optional, so the gateway stays ready", async () => {
		expect(await cluster.procs.ai?.stop("SIGTERM")).toBe(0);
		const body = await waitFor("the cluster view to notice", async () => {
			const r = await clusterView();
			const view = (await r.json()) as ClusterView;
			return r.status === 200 && view.status === "degraded" ? view : undefined;
		});
		expect(body.services).toContainEqual({ name: "ai", available: false, nodeCount: 0, storeMismatch: false });
		expect(body.nodes.find(n => n.nodeId === "ai-node")?.available).toBe(false);
		const ready = await fetch(`${gatewayUrl}/readyz`);
		expect(ready.status).toBe(200);
		expect(await ready.json()).toEqual({ status: "ready" });
	});
});
