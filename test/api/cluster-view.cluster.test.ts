import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ClusterView } from "../../services/gateway/cluster-view.js";
import { buildOpenApi } from "../../services/gateway/openapi.js";
import { ROUTE_TABLE } from "../../services/gateway/route-table.js";
import { SERVICE_NAMES } from "../../shared/runtime/config.js";
import { findNatsServer, freePort, portOpen, startProcess, waitFor, type Proc } from "../support/processes.js";
import { authHeaders, signIn, signUp, type Session } from "../support/users.js";

/**
 * The operational endpoints of the gateway in cluster mode: real nats-server, one OS process
 * per group of services, each running `node dist/services/main.js` as the container image does.
 */
const natsBinary = findNatsServer();
if (!natsBinary && process.env.CI === "true") throw new Error("nats-server is required in CI (apt-get install nats-server)");
const describeCluster = natsBinary ? describe : describe.skip;

const MAIN = path.resolve("dist/services/main.js");

describeCluster("cluster view, OpenAPI and reference page in cluster mode", () => {
	let dataRoot: string;
	let nats: Proc;
	let gatewayUrl: string;
	let admin: Session;
	const procs: Record<string, Proc> = {};

	async function startGroup(services: string, natsUrl: string, extra: Record<string, string> = {}): Promise<void> {
		procs[services] = startProcess(process.execPath, [MAIN], {
			SERVICES: services,
			TRANSPORTER: natsUrl,
			NODE_ID: `${services.replace(/,/g, "-")}-node`,
			DATA_DIR: path.join(dataRoot, services.replace(/,/g, "_")),
			HOST: "127.0.0.1",
			PORT: String(await freePort()),
			HEALTH_PORT: String(await freePort()),
			METRICS_ENABLED: "false",
			LOG_LEVEL: "warn",
			REQUEST_TIMEOUT_MS: "3000",
			...extra
		});
	}

	const clusterView = () => fetch(`${gatewayUrl}/health/cluster`, { headers: authHeaders(admin) });

	beforeAll(async () => {
		dataRoot = await mkdtemp(path.join(os.tmpdir(), "memos-ops-cluster-"));
		const natsPort = await freePort();
		const natsUrl = `nats://127.0.0.1:${natsPort}`;
		nats = startProcess(natsBinary as string, ["-a", "127.0.0.1", "-p", String(natsPort)], {});
		await waitFor("nats-server", async () => ((await portOpen(natsPort)) ? true : undefined));

		const gatewayPort = await freePort();
		gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
		await startGroup("gateway", natsUrl, { PORT: String(gatewayPort) });
		await startGroup("auth,instance,memos,attachments,spaces", natsUrl);
		await startGroup("ai", natsUrl);
		await waitFor("gateway readiness", async () => ((await fetch(`${gatewayUrl}/readyz`)).status === 200 ? true : undefined), 60000);
		await signUp(gatewayUrl, "admin");
		admin = await signIn(gatewayUrl, "admin");
	}, 90000);

	afterAll(async () => {
		await Promise.all(Object.values(procs).map(p => p.stop("SIGKILL")));
		await nats?.stop("SIGKILL");
		if (dataRoot) await rm(dataRoot, { recursive: true, force: true });
	});

	test("the cluster view lists every node with its services, and every service available", async () => {
		const res = await clusterView();
		expect(res.status).toBe(200);
		const body = (await res.json()) as ClusterView;
		expect(body.status).toBe("ok");
		expect(body.services).toEqual(SERVICE_NAMES.map(name => ({ name, available: true, nodeCount: 1 })));
		expect(body.nodes.map(n => [n.nodeId, n.available, n.services])).toEqual([
			["ai-node", true, ["ai"]],
			["auth-instance-memos-attachments-spaces-node", true, ["attachments", "auth", "instance", "memos", "spaces"]],
			["gateway-node", true, ["gateway"]]
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

	test("when the only ai node stops, the view answers 503 with ai unavailable and its node offline", async () => {
		expect(await procs.ai?.stop("SIGTERM")).toBe(0);
		const res = await waitFor("the cluster view to notice", async () => {
			const r = await clusterView();
			return r.status === 503 ? r : undefined;
		});
		const body = (await res.json()) as ClusterView;
		expect(body.status).toBe("degraded");
		expect(body.services).toContainEqual({ name: "ai", available: false, nodeCount: 0 });
		expect(body.nodes.find(n => n.nodeId === "ai-node")?.available).toBe(false);
		const ready = await fetch(`${gatewayUrl}/readyz`);
		expect(ready.status).toBe(503);
		expect(await ready.json()).toEqual({ status: "not_ready", failing: ["ai"] });
	}, 30000);
});
