import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { BROKER_FAILURES } from "../../shared/runtime/call-failures.js";
import { describeCluster, startCluster, type Cluster } from "../support/cluster.js";
import { waitFor, type Proc } from "../support/processes.js";
import { authHeaders, signIn, signUp, type Session } from "../support/users.js";

/**
 * The failures a cluster really has (issue 16), under bounded load over a real nats-server,
 * one OS process per service. What is asserted is what clients see: status codes (503 code 14
 * with Retry-After, never a 500), how many requests failed, and how many waited longer than the
 * request time-out (none may, once a failure is detected). No duration is asserted.
 *
 * The replicated service is `instance`: two replicas sharing one SQLite file (replicas of a
 * service must share one store, issue 16.7).
 */
/**
 * A call that waits for its node instead of failing over or failing fast waits this long, so a
 * "slow" answer (summary) is one that waited for it: below the heartbeat time-out (15 s), so a
 * loss noticed only by heartbeats is caught, and long enough that ordinary calls on a loaded
 * machine do not reach it (at 3 s they could, beside two CPU burners: issue 20).
 */
const REQUEST_TIMEOUT_MS = 10_000;
const SHUTDOWN_TIMEOUT_MS = 3000;
const CLIENTS = 4;

interface Outcome {
	status: number;
	code?: number;
	retryAfter: string | null;
	ms: number;
}

describeCluster("cluster failures", () => {
	let cluster: Cluster;
	let gatewayUrl: string;
	let admin: Session;

	const start = (name: string, services: string, env: Record<string, string> = {}): Promise<Proc> =>
		cluster.start(name, services, { METRICS_PORT: "0", REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS), ...env });

	async function timed(request: () => Promise<Response>): Promise<Outcome> {
		const begin = performance.now();
		const res = await request();
		const text = await res.text();
		const body = text.startsWith("{") ? (JSON.parse(text) as { code?: number }) : {};
		return { status: res.status, code: body.code, retryAfter: res.headers.get("retry-after"), ms: performance.now() - begin };
	}

	/** `clients` sequential loops of `perClient` requests; `during` runs once `after` requests have been answered. */
	async function load(request: () => Promise<Response>, perClient: number, after: number, during: () => Promise<void>): Promise<Outcome[]> {
		const outcomes: Outcome[] = [];
		let fault: Promise<void> | undefined;
		const client = async () => {
			for (let i = 0; i < perClient; i++) {
				outcomes.push(await timed(request));
				if (outcomes.length >= after) fault ??= during();
			}
		};
		await Promise.all(Array.from({ length: CLIENTS }, client));
		await fault;
		return outcomes;
	}

	/** Failures are UNAVAILABLE with Retry-After, never anything else; the count of failures and of slow answers. */
	function summary(outcomes: Outcome[]) {
		const failed = outcomes.filter(o => o.status !== 200);
		for (const o of failed) expect({ status: o.status, code: o.code, retryAfter: o.retryAfter }).toEqual({ status: 503, code: 14, retryAfter: "1" });
		return { failed: failed.length, slow: outcomes.filter(o => o.ms > REQUEST_TIMEOUT_MS).length };
	}

	// Link metadata from a loopback page: the call that test keeps in flight on the memos node.
	const startMemos = () => start("memos", "memos,attachments,spaces,ai", { LINK_METADATA_ALLOW_PRIVATE_NETWORKS: "true" });

	const profile = () => fetch(`${gatewayUrl}/api/v1/instance/profile`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS * 3) });

	async function clusterView(): Promise<{ nodes: { nodeId: string; available: boolean }[] }> {
		return (await fetch(`${gatewayUrl}/health/cluster`, { headers: authHeaders(admin) })).json() as Promise<{ nodes: { nodeId: string; available: boolean }[] }>;
	}

	const nodeAvailable = async (nodeId: string) => (await clusterView()).nodes.some(n => n.nodeId === nodeId && n.available);

	/** The replicas share one data directory, so one SQLite file. */
	const startReplica = (name: string): Promise<Proc> => start(name, "instance", { DATA_DIR: path.join(cluster.dataRoot, "instance") });

	async function replicasUp(): Promise<void> {
		for (const replica of ["instance-a", "instance-b"]) {
			if (cluster.procs[replica]?.child.exitCode !== null || cluster.procs[replica]?.child.signalCode !== null) await startReplica(replica);
			await waitFor(`${replica} in the registry`, async () => ((await nodeAvailable(replica)) ? true : undefined), 60000);
		}
	}

	beforeAll(async () => {
		cluster = await startCluster("memos-faults-");
		await start("gateway", "gateway");
		gatewayUrl = cluster.gatewayUrl;
		await start("auth", "auth");
		await startMemos();
		await startReplica("instance-a");
		await waitFor("the profile through the gateway", async () => ((await profile()).status === 200 ? true : undefined), 60000);
		await signUp(gatewayUrl, "admin");
		admin = await signIn(gatewayUrl, "admin");
		await startReplica("instance-b");
		await replicasUp();
	}, 120000);

	afterAll(async () => {
		await cluster?.stop();
	});

	test("SIGKILL of one of two replicas under load: the survivor takes the traffic, the loss shows in the cluster view", async () => {
		await replicasUp();
		const outcomes = await load(profile, 60, 40, async () => {
			await cluster.procs["instance-a"]?.stop("SIGKILL");
		});
		await waitFor("the cluster view to drop the killed replica", async () => ((await nodeAvailable("instance-a")) ? undefined : true));
		const { failed, slow } = summary(outcomes);
		expect(outcomes).toHaveLength(CLIENTS * 60);
		// At most the requests in flight on the killed node, which retries move to the survivor.
		expect(failed).toBeLessThanOrEqual(CLIENTS);
		expect(slow).toBe(0);
		expect((await profile()).status).toBe(200);
	}, 120000);

	test("SIGTERM of a replica under load: no request fails, the replica exits cleanly", async () => {
		await replicasUp();
		let exitCode: number | null = -1;
		const outcomes = await load(profile, 40, 20, async () => {
			exitCode = (await cluster.procs["instance-b"]?.stop("SIGTERM")) ?? null;
		});
		expect(exitCode).toBe(0);
		expect(summary(outcomes)).toEqual({ failed: 0, slow: 0 });
	}, 120000);

	test("the only node of a service killed mid-call: the call in flight answers 503 code 14 with Retry-After, logged with its error and request id", async () => {
		let arrived: () => void = () => undefined;
		const requested = new Promise<void>(resolve => {
			arrived = resolve;
		});
		// A page that never answers keeps GetLinkMetadata running on the memos node.
		const page = http.createServer(() => arrived());
		await new Promise<void>(resolve => page.listen(0, "127.0.0.1", resolve));
		const { port } = page.address() as AddressInfo;
		try {
			const call = timed(() =>
				fetch(`${gatewayUrl}/api/v1/memos/-/linkMetadata?url=${encodeURIComponent(`http://127.0.0.1:${port}/page`)}`, {
					headers: { ...authHeaders(admin), "X-Request-Id": "vanished-1" },
					signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS * 3)
				})
			);
			await requested;
			await cluster.procs.memos?.stop("SIGKILL");
			const outcome = await call;
			expect({ status: outcome.status, code: outcome.code, retryAfter: outcome.retryAfter }).toEqual({ status: 503, code: 14, retryAfter: "1" });
			const line = await waitFor("the gateway's log line of the failure", async () =>
				cluster.procs.gateway
					?.output()
					.split("\n")
					.filter(text => text.startsWith("{") && text.includes("vanished-1"))
					.map(text => JSON.parse(text) as { msg?: string; level?: number; requestId?: string; err?: Record<string, unknown> })
					.find(entry => entry.msg?.startsWith("request failed"))
			);
			expect(line).toMatchObject({ level: 40, msg: "request failed: service unavailable", requestId: "vanished-1" });
			expect(line.err).toMatchObject({ message: expect.stringContaining("memos.getLinkMetadata"), stack: expect.any(String), code: expect.any(Number) });
			// pino names the error's class in `type`: one of the cluster's failures, never an unexpected one.
			expect(Object.keys(BROKER_FAILURES)).toContain(line.err?.type);
		} finally {
			page.closeAllConnections();
			page.close();
			await startMemos();
			await waitFor("memos back", async () => ((await fetch(`${gatewayUrl}/api/v1/memos`, { headers: authHeaders(admin) })).status === 200 ? true : undefined), 60000);
		}
	}, 120000);

	test("NATS restart: requests fail fast while it is down, acknowledged writes are all readable afterwards", async () => {
		await replicasUp();
		const createMemo = (content: string) =>
			fetch(`${gatewayUrl}/api/v1/memos`, { method: "POST", headers: authHeaders(admin), body: JSON.stringify({ content }), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS * 3) });
		const acknowledged: string[] = [];
		const write = async (content: string) => {
			const res = await createMemo(content);
			if (res.status === 200) acknowledged.push(((await res.json()) as { name: string }).name);
			else await res.text();
			return res.status;
		};
		for (let i = 0; i < 5; i++) expect(await write(`before ${i}`)).toBe(200);

		await cluster.killNats();
		// The gateway notices the lost connection before it answers anything else.
		await waitFor("the gateway to report the transporter down", async () => {
			const res = await fetch(`${gatewayUrl}/readyz`);
			const body = (await res.json()) as { failing?: string[] };
			return res.status === 503 && body.failing?.includes("transporter") ? true : undefined;
		});
		const during = [...(await Promise.all(Array.from({ length: 10 }, () => timed(profile)))), ...(await Promise.all(Array.from({ length: 10 }, (_, i) => timed(() => createMemo(`during ${i}`)))))];
		expect(summary(during)).toEqual({ failed: 20, slow: 0 });

		await cluster.restartNats();
		await waitFor("the profile after NATS is back", async () => ((await profile()).status === 200 ? true : undefined), 60000);
		await waitFor("writes after NATS is back", async () => ((await write("after")) === 200 ? true : undefined), 60000);
		// One write through the gateway does not mean every node has found every other again: under two
		// CPU burners a read right after it answered 503 (retry later, contract 19). Each acknowledged memo
		// must be read back, and nothing but 503 may come before its 200.
		for (const name of acknowledged) {
			const answers: { status: number; body: string }[] = [];
			await waitFor(`${name} read back`, async () => {
				const res = await fetch(`${gatewayUrl}/api/v1/${name}`, { headers: authHeaders(admin) });
				answers.push({ status: res.status, body: res.status === 200 ? "" : await res.text() });
				if (res.status === 200) await res.arrayBuffer();
				return res.status === 503 ? undefined : true;
			}, 60000).catch((err: Error) => {
				throw new Error(`${err.message}; last answer ${JSON.stringify(answers.at(-1))}`);
			});
			expect(answers.filter(answer => answer.status !== 503)).toEqual([{ status: 200, body: "" }]);
		}
		expect(acknowledged.length).toBeGreaterThanOrEqual(6);
	}, 180000);

	test("SIGTERM of the gateway with open keep-alive connections: new requests get 503, the process exits by its deadline", async () => {
		await replicasUp();
		const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
		const url = new URL(`${gatewayUrl}/api/v1/instance/profile`);
		const get = () =>
			new Promise<number>((resolve, reject) => {
				const req = http.get({ host: url.hostname, port: url.port, path: url.pathname, agent }, res => {
					res.resume();
					res.once("end", () => resolve(res.statusCode ?? 0));
				});
				req.once("error", reject);
			});
		// Every client keeps its connection busy until the connection itself goes.
		const statuses: number[] = [];
		let closed = 0;
		const client = async () => {
			for (let i = 0; i < 2000; i++) {
				try {
					statuses.push(await get());
				} catch {
					closed++;
					return;
				}
			}
		};
		const clients = Array.from({ length: CLIENTS }, client);
		await waitFor("load on the gateway", async () => (statuses.length >= 20 ? true : undefined));
		const answeredBefore = statuses.length;
		const gateway = cluster.procs.gateway as Proc;
		expect(await gateway.stop("SIGTERM")).toBe(0);
		// Its last log line, logged just before process.exit, waits in the log's batch: pino writes it at exit.
		await waitFor("the gateway's last log line", async () => (gateway.output().includes("ServiceBroker is stopped. Good bye.") ? true : undefined), 30000);
		await Promise.all(clients);
		agent.destroy();
		expect(statuses.filter(s => s !== 200 && s !== 503)).toEqual([]);
		expect(closed).toBe(CLIENTS);
		// The requests in flight at SIGTERM (and any racing it) are answered; then each connection closes.
		expect(statuses.length - answeredBefore).toBeLessThanOrEqual(2 * CLIENTS);
	}, 120000);
});
