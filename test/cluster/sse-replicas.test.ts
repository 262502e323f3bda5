import path from "node:path";
import { describeCluster, startCluster, type Cluster } from "../support/cluster.js";
import { memoClient, type Memo } from "../support/memos-client.js";
import { waitFor } from "../support/processes.js";
import { openSse, type SseStream } from "../support/sse-client.js";
import { authHeaders, signIn, signUp, type Session } from "../support/users.js";

/**
 * The live stream across replicas (contract 17), one OS process per node over a real
 * nats-server: two gateways and two memos replicas (sharing one store). A change made on either
 * memos node reaches the streams on both gateways, and never a user who cannot read the memo.
 * Which memos node makes a change is decided by stopping the other one.
 */

interface View {
	nodes: { nodeId: string; available: boolean; services: string[] }[];
}

describeCluster("live streams on two gateways and two memos replicas", () => {
	let cluster: Cluster;
	const gateways: string[] = [];
	let admin: Session;
	let alice: Session;
	let carol: Session;
	const streams: SseStream[] = [];
	const sharedDataDir = () => ({ DATA_DIR: path.join(cluster.dataRoot, "memos-shared") });

	/** The available memos nodes as each gateway sees them. */
	async function memosNodesSeenBy(gatewayUrl: string): Promise<string[]> {
		const view = (await (await fetch(`${gatewayUrl}/health/cluster`, { headers: authHeaders(admin) })).json()) as View;
		return view.nodes.filter(n => n.available && n.services.includes("memos")).map(n => n.nodeId).sort();
	}

	/** Waits until both gateways see exactly `nodes` as the memos replicas. */
	async function memosNodesAre(nodes: string[]): Promise<void> {
		for (const gatewayUrl of gateways) {
			await waitFor(`memos nodes ${nodes.join(", ")} seen by ${gatewayUrl}`, async () => (JSON.stringify(await memosNodesSeenBy(gatewayUrl)) === JSON.stringify(nodes) ? true : undefined));
		}
	}

	async function open(gatewayUrl: string, session: Session): Promise<SseStream> {
		const stream = await openSse(gatewayUrl, session.accessToken);
		streams.push(stream);
		expect(stream.status).toBe(200);
		await stream.until("connected", s => s.comments.includes("connected"));
		return stream;
	}

	async function created(gatewayUrl: string, memo: Record<string, unknown>): Promise<Memo> {
		const res = await memoClient(gatewayUrl).create(alice, memo);
		if (res.status !== 200) throw new Error(`CreateMemo answered ${res.status}: ${res.text}`);
		return res.body;
	}

	const hears = (stream: SseStream, name: string) => stream.until(`memo.created of ${name}`, s => s.events.some(e => e.type === "memo.created" && e.name === name), 60000);

	beforeAll(async () => {
		cluster = await startCluster("memos-sse-");
		for (const name of ["gateway-a", "gateway-b"]) {
			await cluster.start(name, "gateway", { METRICS_PORT: "0" });
			gateways.push(cluster.gatewayUrl);
		}
		await cluster.start("backend", "auth,instance,spaces,attachments,ai", { METRICS_PORT: "0" });
		await cluster.start("memos-a", "memos", { METRICS_PORT: "0", ...sharedDataDir() });
		for (const gatewayUrl of gateways) {
			await waitFor("the profile through each gateway", async () => ((await fetch(`${gatewayUrl}/api/v1/instance/profile`)).status === 200 ? true : undefined));
		}
		await signUp(gateways[0] as string, "admin");
		admin = await signIn(gateways[0] as string, "admin");
		for (const username of ["alice", "carol"]) await signUp(gateways[0] as string, username, undefined, { accessToken: admin.accessToken });
		alice = await signIn(gateways[0] as string, "alice");
		carol = await signIn(gateways[1] as string, "carol");
		await memosNodesAre(["memos-a"]);
	});

	afterAll(async () => {
		for (const stream of streams) stream.close();
		await cluster?.stop();
	});

	test("a change made on either memos node reaches the readers' streams on both gateways, and no one else's", async () => {
		const readers = [await open(gateways[0] as string, alice), await open(gateways[1] as string, alice)];
		const others = [await open(gateways[0] as string, carol), await open(gateways[1] as string, carol)];

		// Only memos-a runs: it makes these changes.
		const hidden = await created(gateways[0] as string, { content: "alice only, made on memos-a" });
		const shown = await created(gateways[1] as string, { content: "everyone, made on memos-a", visibility: "PROTECTED" });
		for (const stream of readers) await hears(stream, hidden.name);
		for (const stream of [...readers, ...others]) await hears(stream, shown.name);

		// Now only memos-b runs: it makes the next ones.
		await cluster.start("memos-b", "memos", { METRICS_PORT: "0", ...sharedDataDir() });
		await memosNodesAre(["memos-a", "memos-b"]);
		expect(await cluster.procs["memos-a"]?.stop()).toBe(0);
		await memosNodesAre(["memos-b"]);
		const hiddenB = await created(gateways[1] as string, { content: "alice only, made on memos-b" });
		const shownB = await created(gateways[0] as string, { content: "everyone, made on memos-b", visibility: "PROTECTED" });
		for (const stream of readers) await hears(stream, hiddenB.name);
		for (const stream of [...readers, ...others]) await hears(stream, shownB.name);

		// One gateway tells its streams in order: what carol heard after the PROTECTED memos holds no private one.
		for (const stream of others) {
			expect(stream.events.map(e => e.name)).not.toContain(hidden.name);
			expect(stream.events.map(e => e.name)).not.toContain(hiddenB.name);
		}
		for (const stream of readers) expect(stream.events.filter(e => e.type === "memo.created").map(e => e.name)).toEqual([hidden.name, shown.name, hiddenB.name, shownB.name]);
	});
});
