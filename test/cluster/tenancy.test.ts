import { describeCluster, startCluster, type Cluster } from "../support/cluster.js";
import { waitFor } from "../support/processes.js";
import { authHeaders, populate, type Population } from "../support/users.js";

/**
 * Several installations on one NATS (README "Operations"): each NAMESPACE is its own cluster,
 * and the bus admits only processes with its credentials.
 */
describeCluster("installations sharing one authenticated nats-server", () => {
	let cluster: Cluster;
	const tenants: Record<"a" | "b", { url: string; people?: Population }> = { a: { url: "" }, b: { url: "" } };
	const BACKEND = "auth,memos,attachments,spaces,instance,ai";

	const ready = (url: string) =>
		waitFor(`the gateway at ${url} to be ready`, async () => ((await fetch(`${url}/readyz`)).status === 200 ? true : undefined));

	beforeAll(async () => {
		cluster = await startCluster("memos-tenancy-");
		// Tenant a: the default namespace; tenant b: its own. Gateways alone in their process, so
		// every call they make crosses NATS and could reach the other tenant's services if the
		// namespaces mixed.
		const metrics = { METRICS_PORT: "0" };
		await cluster.start("a-gateway", "gateway", metrics);
		tenants.a.url = cluster.gatewayUrl;
		await cluster.start("a-backend", BACKEND, metrics);
		await cluster.start("b-gateway", "gateway", { ...metrics, NAMESPACE: "tenant-b" });
		tenants.b.url = cluster.gatewayUrl;
		await cluster.start("b-backend", BACKEND, { ...metrics, NAMESPACE: "tenant-b" });
		await Promise.all([ready(tenants.a.url), ready(tenants.b.url)]);
		tenants.a.people = await populate(tenants.a.url, 0);
		tenants.b.people = await populate(tenants.b.url, 0);
	});

	afterAll(async () => {
		await cluster?.stop();
	});

	test("two namespaces never see each other's memos, users or nodes", async () => {
		const a = tenants.a.people as Population;
		const b = tenants.b.people as Population;
		for (let i = 0; i < 3; i++) {
			const res = await fetch(`${tenants.a.url}/api/v1/memos`, { method: "POST", headers: authHeaders(a.admin), body: JSON.stringify({ content: `tenant a memo ${i}` }) });
			expect(res.status).toBe(200);
		}
		// Round-robin would alternate between the tenants' memos services if both were visible.
		for (let i = 0; i < 6; i++) {
			const listedB = (await (await fetch(`${tenants.b.url}/api/v1/memos`, { headers: authHeaders(b.admin) })).json()) as { memos: unknown[] };
			expect(listedB.memos).toHaveLength(0);
			const listedA = (await (await fetch(`${tenants.a.url}/api/v1/memos`, { headers: authHeaders(a.admin) })).json()) as { memos: unknown[] };
			expect(listedA.memos).toHaveLength(3);
		}
		// Each tenant has its own users and signing secret: a's token means nothing to b.
		expect((await fetch(`${tenants.b.url}/api/v1/auth/me`, { headers: authHeaders(a.admin) })).status).toBe(401);

		const view = (await (await fetch(`${tenants.b.url}/health/cluster`, { headers: authHeaders(b.admin) })).json()) as { nodes: { nodeId: string }[] };
		expect(view.nodes.map(n => n.nodeId).sort()).toEqual(["b-backend", "b-gateway"]);
	});

	test("a process with wrong or no NATS credentials stops at once with a message naming the variables", async () => {
		for (const [name, env] of [
			["wrong-password", { NATS_PASSWORD: `${cluster.natsPassword}x` }],
			["no-credentials", { NATS_USER: "", NATS_PASSWORD: "" }]
		] as const) {
			const proc = await cluster.start(name, "spaces", { ...env, METRICS_PORT: "0" });
			expect({ name, code: await proc.exited }).toEqual({ name, code: 1 });
			expect(proc.output()).toContain("NATS refused the credentials (check NATS_USER and NATS_PASSWORD, or NATS_TOKEN)");
			expect(proc.output()).not.toContain(cluster.natsPassword);
		}
	});
});
