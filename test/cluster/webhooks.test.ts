import path from "node:path";
import { describeCluster, startCluster, type Cluster } from "../support/cluster.js";
import { memoClient } from "../support/memos-client.js";
import { waitFor } from "../support/processes.js";
import { authHeaders, signIn, signUp, type Session } from "../support/users.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

/**
 * Webhook deliveries across processes (contract 17), over a real nats-server: the API services in
 * one process, the delivery worker alone in two others (`SERVICES=webhooks`), all on one store.
 * Together the workers deliver every change once, in order; and a delivery pending when every process
 * (nats-server included) is killed with SIGKILL is delivered after they start again.
 */

interface View {
	nodes: { nodeId: string; available: boolean; services: string[] }[];
}

describeCluster("webhook delivery workers in processes of their own", () => {
	let cluster: Cluster;
	let receiver: Receiver;
	let admin: Session;
	let alice: Session;
	const api = () => memoClient(cluster.gatewayUrl);
	/** One store for every process: replicas of a service share it, and the worker reads what auth records. */
	const env = () => ({ METRICS_PORT: "0", DATA_DIR: path.join(cluster.dataRoot, "shared"), LINK_METADATA_ALLOW_PRIVATE_NETWORKS: "true" });

	const startApi = () => cluster.start("api", "gateway,auth,memos,attachments,spaces,instance", env());
	const startWorker = (name: string) => cluster.start(name, "webhooks", env());

	/** Waits until the gateway sees exactly `nodes` running the delivery worker. */
	async function workersAre(nodes: string[]): Promise<void> {
		await waitFor(`webhooks nodes ${nodes.join(", ")}`, async () => {
			const view = (await (await fetch(`${cluster.gatewayUrl}/health/cluster`, { headers: authHeaders(admin) })).json()) as View;
			const running = view.nodes.filter(n => n.available && n.services.includes("webhooks")).map(n => n.nodeId).sort();
			return JSON.stringify(running) === JSON.stringify(nodes) ? true : undefined;
		});
	}

	async function create(content: string): Promise<string> {
		const res = await api().create(alice, { content });
		if (res.status !== 200) throw new Error(`CreateMemo answered ${res.status}: ${res.text}`);
		return res.body.name;
	}

	const delivered = (count: number) => waitFor(`${count} deliveries`, async () => (receiver.delivered().length >= count ? true : undefined), 120_000);

	beforeAll(async () => {
		receiver = await startReceiver();
		cluster = await startCluster("memos-webhooks-");
		await startApi();
		await startWorker("webhooks-a");
		await startWorker("webhooks-b");
		// The gateway listens before the services of its process have started (503 until then, as for any missing service).
		await waitFor("the instance profile through the gateway", async () => ((await fetch(`${cluster.gatewayUrl}/api/v1/instance/profile`)).status === 200 ? true : undefined));
		await signUp(cluster.gatewayUrl, "admin");
		admin = await signIn(cluster.gatewayUrl, "admin");
		await signUp(cluster.gatewayUrl, "alice", undefined, { accessToken: admin.accessToken });
		alice = await signIn(cluster.gatewayUrl, "alice");
		const hook = await api().request<{ name: string }>("POST", "/users/alice/webhooks", { as: alice, body: { url: receiver.url } });
		expect(hook.status).toBe(200);
		receiver.secret = (await api().request<{ signingSecret: string }>("GET", `/${hook.body.name}:getSigningSecret`, { as: alice })).body.signingSecret;
		await workersAre(["webhooks-a", "webhooks-b"]);
	});

	afterAll(async () => {
		await cluster?.stop();
		await receiver?.close();
	});

	test("two worker processes deliver every change once, signed, in order", async () => {
		const names: string[] = [];
		for (let i = 0; i < 4; i++) names.push(await create(`change ${i}`));
		await delivered(4);
		const got = receiver.delivered();
		expect(got.map(r => r.body.memo.content)).toEqual(["change 0", "change 1", "change 2", "change 3"]);
		expect(got.map(r => r.body.memo.name)).toEqual(names);
		expect(got.every(r => r.verified && r.body.activityType === "memos.memo.created")).toBe(true);
		// Once delivered, never sent again.
		expect(receiver.received).toHaveLength(4);
		expect(new Set(got.map(r => r.webhookId)).size).toBe(4);
	});

	test("a delivery pending when every process is killed (SIGKILL) is delivered after they start again", async () => {
		// A worker killed between a 2xx and its record of it sends that delivery again (at least once):
		// a receiver drops the repeat by its webhook-id, as README says receivers can.
		const seen = new Set(receiver.delivered().map(r => r.webhookId));
		const fresh = () => receiver.delivered().filter(r => !seen.has(r.webhookId));
		receiver.received.length = 0;
		// No worker: the changes' deliveries are recorded and wait.
		await cluster.procs["webhooks-a"]!.stop("SIGKILL");
		await cluster.procs["webhooks-b"]!.stop("SIGKILL");
		const pending = [await create("while no worker runs"), await create("still none")];
		expect((await api().update(alice, pending[0]!, "content", { content: "edited while none" })).status).toBe(200);
		expect(fresh()).toEqual([]);

		await cluster.procs.api!.stop("SIGKILL");
		await cluster.killNats();
		await cluster.restartNats();
		await startApi();
		await startWorker("webhooks-a");

		await waitFor("3 new deliveries", async () => (fresh().length >= 3 ? true : undefined), 120_000);
		expect(fresh().map(r => [r.body.activityType, r.body.memo.name, r.body.memo.content])).toEqual([
			["memos.memo.created", pending[0], "while no worker runs"],
			["memos.memo.created", pending[1], "still none"],
			["memos.memo.updated", pending[0], "edited while none"]
		]);
		expect(fresh().every(r => r.verified)).toBe(true);
	});
});
