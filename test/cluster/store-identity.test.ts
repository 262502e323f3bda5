import path from "node:path";
import { describeCluster, startCluster, type Cluster } from "../support/cluster.js";
import { memoClient } from "../support/memos-client.js";
import { waitFor } from "../support/processes.js";
import { authHeaders, signIn, signUp, type Session } from "../support/users.js";

/**
 * Replicas of a service must answer from one store (issue 16.7). Over a real nats-server, one
 * OS process per node: two memos replicas on one data directory share its SQLite file and
 * advertise the same store; a third on a data directory of its own refuses to start, with one
 * line saying why. (A live mismatch, which only replicas starting at the same moment can make,
 * is flagged by the cluster view: test/api/cluster-view.test.ts.)
 */

interface View {
	status: string;
	services: { name: string; nodeCount: number; storeMismatch: boolean }[];
	nodes: { nodeId: string; available: boolean; services: string[]; documentStores: Record<string, string> }[];
}

describeCluster("store identity of replicas", () => {
	let cluster: Cluster;
	let gatewayUrl: string;
	let admin: Session;
	const sharedDataDir = () => ({ DATA_DIR: path.join(cluster.dataRoot, "memos-shared") });

	async function view(): Promise<View> {
		return (await (await fetch(`${gatewayUrl}/health/cluster`, { headers: authHeaders(admin) })).json()) as View;
	}
	const memosNodes = async () => (await view()).nodes.filter(n => n.available && n.services.includes("memos")).map(n => n.nodeId);

	beforeAll(async () => {
		cluster = await startCluster("memos-store-identity-");
		await cluster.start("gateway", "gateway", { METRICS_PORT: "0" });
		gatewayUrl = cluster.gatewayUrl;
		await cluster.start("backend", "auth,instance,spaces,attachments,ai,webhooks", { METRICS_PORT: "0" });
		await cluster.start("memos-a", "memos", { METRICS_PORT: "0", ...sharedDataDir() });
		await waitFor("the profile through the gateway", async () => ((await fetch(`${gatewayUrl}/api/v1/instance/profile`)).status === 200 ? true : undefined));
		await signUp(gatewayUrl, "admin");
		admin = await signIn(gatewayUrl, "admin");
	});
	afterAll(async () => {
		await cluster?.stop();
	});

	test("two replicas on one data directory start, advertise one store and answer from the same data", async () => {
		await cluster.start("memos-b", "memos", { METRICS_PORT: "0", ...sharedDataDir() });
		await waitFor("both memos replicas", async () => ((await memosNodes()).length === 2 ? true : undefined));
		const { status, services, nodes } = await view();
		expect(status).toBe("ok");
		expect(services.find(s => s.name === "memos")).toMatchObject({ nodeCount: 2, storeMismatch: false });
		const [a, b] = ["memos-a", "memos-b"].map(id => nodes.find(n => n.nodeId === id)?.documentStores.memos);
		expect(a).toMatch(/^[0-9a-f-]{36}$/);
		expect(b).toBe(a);

		// Calls alternate between the replicas: every write is read back by both.
		const api = memoClient(gatewayUrl);
		const names: string[] = [];
		for (let i = 0; i < 6; i++) {
			const created = await api.create(admin, { content: `shared ${i}` });
			expect(created.status).toBe(200);
			names.push(created.body.name);
		}
		for (let round = 0; round < 4; round++) {
			const list = await api.list(admin, { pageSize: "100" });
			expect(list.status).toBe(200);
			expect(list.body.memos.map(m => m.name).sort()).toEqual([...names].sort());
			for (const name of names) expect((await api.get(admin, name)).status).toBe(200);
		}
	});

	test("a replica on another data directory refuses to start, with one line naming the replicas and the stores", async () => {
		await waitFor("both memos replicas", async () => ((await memosNodes()).length === 2 ? true : undefined));
		const advertised = (await view()).nodes.find(n => n.nodeId === "memos-a")?.documentStores.memos as string;
		const proc = await cluster.start("memos-c", "memos", { METRICS_PORT: "0" });
		expect(await proc.exited).toBe(1);
		const lines = proc.output().split("\n").filter(line => line.startsWith("memos: start-up failed:"));
		expect(lines).toHaveLength(1);
		expect(lines[0]).toMatch(
			new RegExp(
				`^memos: start-up failed: memos refused to start: its replicas on memos-a \\(store ${advertised}\\), memos-b \\(store ${advertised}\\) ` +
					"use another store than this node's \\(store [0-9a-f-]{36}\\); replicas of a service must share one store: the same MONGO_URL, or the same DATA_DIR on one host$"
			)
		);
		expect(lines[0]).not.toContain(`this node's (store ${advertised})`);

		const after = await view();
		expect(after.services.find(s => s.name === "memos")).toMatchObject({ nodeCount: 2, storeMismatch: false });
		expect(after.nodes.filter(n => n.services.includes("memos")).map(n => n.nodeId).sort()).toEqual(["memos-a", "memos-b"]);
	});
});
