import os from "node:os";
import { clusterView, type ClusterView, type RegistryNode, type RegistryService } from "../../services/gateway/cluster-view.js";
import { SERVICE_NAMES } from "../../shared/runtime/config.js";
import { resourcesOf } from "../../shared/runtime/resources.js";
import type { EmbeddedApp } from "../support/embedded-app.js";
import { authHeaders, startPopulatedApp, type Population, type Session } from "../support/users.js";

const NOW = Date.UTC(2025, 2, 1, 10, 0, 0);
const clock = { now: NOW, uptimeSeconds: 1000 };

function node(id: string, extra: Partial<RegistryNode> = {}): RegistryNode {
	return { id, available: true, local: false, hostname: id, cpu: 12.4, lastHeartbeatTime: 998, ...extra };
}
const on = (nodeID: string, ...names: string[]): RegistryService[] => names.map(name => ({ name, nodeID }));

describe("cluster view (contract 13)", () => {
	test("every required service on an available node: 200 ok, nodes with their services and heartbeat time", () => {
		const nodes = [node("memos-2"), node("gateway-1", { local: true, lastHeartbeatTime: 3 }), node("memos-1", { cpu: null })];
		const services = [
			...on("gateway-1", "$node", "gateway"),
			...on("memos-1", "$node", "memos", "auth", "attachments"),
			...on("memos-2", "memos", "spaces", "instance", "ai", "webhooks")
		];
		const { status, body } = clusterView(nodes, services, clock);
		expect(status).toBe(200);
		expect(body.status).toBe("ok");
		expect(body.generatedTime).toBe("2025-03-01T10:00:00.000Z");
		expect(body.services.map(s => s.name)).toEqual([...SERVICE_NAMES]);
		expect(body.services.find(s => s.name === "memos")).toEqual({ name: "memos", available: true, nodeCount: 2, storeMismatch: false });
		expect(body.nodes).toEqual([
			{ nodeId: "gateway-1", hostname: "gateway-1", available: true, lastHeartbeatTime: "2025-03-01T10:00:00.000Z", services: ["gateway"], cpu: 12, documentStores: {} },
			{ nodeId: "memos-1", hostname: "memos-1", available: true, lastHeartbeatTime: "2025-03-01T09:59:58.000Z", services: ["attachments", "auth", "memos"], cpu: 0, documentStores: {} },
			{ nodeId: "memos-2", hostname: "memos-2", available: true, lastHeartbeatTime: "2025-03-01T09:59:58.000Z", services: ["ai", "instance", "memos", "spaces", "webhooks"], cpu: 12, documentStores: {} }
		]);
	});

	test("a required service whose only node is unavailable: 503, the service unavailable with no node", () => {
		const nodes = [node("all-1", { local: true }), node("memos-1", { available: false, lastHeartbeatTime: 900 })];
		const services = [...on("all-1", "gateway", "auth", "ai", "attachments", "spaces", "instance"), ...on("memos-1", "memos")];
		const { status, body } = clusterView(nodes, services, clock);
		expect(status).toBe(503);
		expect(body.status).toBe("degraded");
		expect(body.services.find(s => s.name === "memos")).toEqual({ name: "memos", available: false, nodeCount: 0, storeMismatch: false });
		expect(body.nodes.find(n => n.nodeId === "memos-1")).toMatchObject({ available: false, lastHeartbeatTime: "2025-03-01T09:58:20.000Z", services: ["memos"] });
	});

	test("the optional ai service without a node: 200, but degraded", () => {
		const nodes = [node("all-1", { local: true }), node("ai-1", { available: false, lastHeartbeatTime: 900 })];
		const services = [...on("all-1", "gateway", "auth", "memos", "attachments", "spaces", "instance"), ...on("ai-1", "ai")];
		const { status, body } = clusterView(nodes, services, clock);
		expect(status).toBe(200);
		expect(body.status).toBe("degraded");
		expect(body.services.find(s => s.name === "ai")).toEqual({ name: "ai", available: false, nodeCount: 0, storeMismatch: false });
	});

	test("services outside the required list are listed after it and do not decide the status", () => {
		const { status, body } = clusterView([node("n")], on("n", ...SERVICE_NAMES, "extra"), clock);
		expect(status).toBe(200);
		expect(body.services.at(-1)).toEqual({ name: "extra", available: true, nodeCount: 1, storeMismatch: false });
	});

	test("replicas of a service advertising different document stores: flagged and degraded; nodes show their stores", () => {
		const stores = (identity: string, ...names: string[]) => ({ documentStores: Object.fromEntries(names.map(name => [name, identity])) });
		const nodes = [
			node("all-1", { local: true, metadata: stores("store-a", "auth", "memos", "attachments", "spaces", "instance") }),
			node("memos-2", { metadata: stores("store-a", "memos") }),
			node("memos-3", { metadata: stores("store-b", "memos") }),
			// An unavailable replica's store does not count.
			node("spaces-2", { available: false, metadata: stores("store-c", "spaces") })
		];
		const services = [...on("all-1", ...SERVICE_NAMES), ...on("memos-2", "memos"), ...on("memos-3", "memos"), ...on("spaces-2", "spaces")];
		const { status, body } = clusterView(nodes, services, clock);
		expect(status).toBe(200);
		expect(body.status).toBe("degraded");
		expect(body.services.filter(s => s.storeMismatch).map(s => s.name)).toEqual(["memos"]);
		expect(body.services.find(s => s.name === "memos")).toEqual({ name: "memos", available: true, nodeCount: 3, storeMismatch: true });
		expect(body.nodes.find(n => n.nodeId === "memos-3")?.documentStores).toEqual({ memos: "store-b" });
		expect(body.nodes.find(n => n.nodeId === "all-1")?.documentStores).toEqual({ attachments: "store-a", auth: "store-a", instance: "store-a", memos: "store-a", spaces: "store-a" });

		const agreeing = clusterView(nodes.slice(0, 2), services.filter(s => s.nodeID === "all-1" || s.nodeID === "memos-2"), clock);
		expect(agreeing.body.status).toBe("ok");
		expect(agreeing.body.services.some(s => s.storeMismatch)).toBe(false);
	});
});

describe("GET /health/cluster", () => {
	let app: EmbeddedApp & Population;
	const view = (headers: Record<string, string> = {}) => fetch(`${app.baseUrl}/health/cluster`, { headers });
	beforeAll(async () => {
		app = await startPopulatedApp(1);
	});
	afterAll(async () => {
		await app?.stop();
	});

	test("an admin sees every service and the node running them", async () => {
		const res = await view(authHeaders(app.admin));
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toMatch(/^application\/json/);
		const body = await res.json();
		expect(body).toEqual({
			status: "ok",
			generatedTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
			services: SERVICE_NAMES.map(name => ({ name, available: true, nodeCount: 1, storeMismatch: false })),
			nodes: [
				{
					nodeId: app.node.broker.nodeID,
					hostname: os.hostname(),
					available: true,
					lastHeartbeatTime: expect.any(String),
					services: [...SERVICE_NAMES].sort(),
					cpu: expect.any(Number),
					documentStores: Object.fromEntries(["attachments", "auth", "instance", "memos", "spaces", "webhooks"].map(name => [name, resourcesOf(app.node.broker).documents?.identity]))
				}
			]
		});
	});

	test("anonymous callers get UNAUTHENTICATED, other users PERMISSION_DENIED", async () => {
		const anonymous = await view();
		expect(anonymous.status).toBe(401);
		expect(await anonymous.json()).toEqual({ code: 16, message: expect.any(String), details: [] });
		const user = await view(authHeaders(app.users[0] as Session));
		expect(user.status).toBe(403);
		expect(((await user.json()) as { code: number }).code).toBe(7);
	});

	test("a header that is not a valid bearer token gets UNAUTHENTICATED", async () => {
		for (const authorization of ["Basic YWRtaW46YWRtaW4=", "Bearer not-a-token", "Bearer", `Bearer ${"a".repeat(5000)}`]) {
			const res = await view({ Authorization: authorization });
			expect({ authorization, status: res.status }).toEqual({ authorization, status: 401 });
			expect(((await res.json()) as { code: number }).code).toBe(16);
		}
	});

	test("the optional ai service with no node: 200 but degraded; a required one with no node: 503", async () => {
		const { broker } = app.node;
		await broker.destroyService(broker.getLocalService("ai"));
		const withoutAi = await view(authHeaders(app.admin));
		expect(withoutAi.status).toBe(200);
		const body = (await withoutAi.json()) as ClusterView;
		expect(body.status).toBe("degraded");
		expect(body.services).toContainEqual({ name: "ai", available: false, nodeCount: 0, storeMismatch: false });
		expect(body.nodes[0]?.services).not.toContain("ai");

		await broker.destroyService(broker.getLocalService("spaces"));
		const withoutSpaces = await view(authHeaders(app.admin));
		expect(withoutSpaces.status).toBe(503);
		expect(((await withoutSpaces.json()) as ClusterView).services).toContainEqual({ name: "spaces", available: false, nodeCount: 0, storeMismatch: false });
	});
});
