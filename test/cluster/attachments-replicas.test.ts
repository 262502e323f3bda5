import { createHash } from "node:crypto";
import path from "node:path";
import S3rver from "s3rver";
import { describeCluster, startCluster, type Cluster } from "../support/cluster.js";
import { waitFor } from "../support/processes.js";
import { authHeaders, signIn, signUp, type Session } from "../support/users.js";

/**
 * Two attachments processes behind one gateway over a real nats-server, sharing blobs in S3
 * (s3rver on loopback): a chunked upload completes whichever replica each call reaches, since
 * continuation calls are routed to the node holding the session (contract 8.4).
 *
 * Documents: MongoDB when MONGO_URL is set; otherwise the replicas share one SQLite file (one
 * data directory), as replicas of a service must (issue 16.7), so either serves the download.
 */
const MiB = 1024 * 1024;
/** The figure: 100 MiB in 25 chunks of 4 MiB. */
const UPLOAD_SIZE = 100 * MiB;
const CHUNK = 4 * MiB;
const REPLICAS = ["attachments-a", "attachments-b"];

/**
 * The upload's bytes from `offset` on (at most one chunk): a fixed pattern made chunk by chunk
 * as it is sent, so the test process never fills 100 MiB in one synchronous stretch.
 */
function uploadBytes(offset: number, length = CHUNK): Buffer {
	const size = Math.min(length, UPLOAD_SIZE - offset);
	const bytes = Buffer.alloc(Math.ceil(size / 4) * 4);
	for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32LE(((offset + i) * 2654435761) >>> 0, i);
	return bytes.subarray(0, size);
}

describeCluster("two attachments replicas over NATS", () => {
	let cluster: Cluster;
	let gatewayUrl: string;
	let s3rver: S3rver;
	let replicaEnv: Record<string, string>;
	let admin: Session;

	function startService(nodeId: string, services: string, extra: Record<string, string> = {}) {
		return cluster.start(nodeId, services, {
			METRICS_PORT: "0",
			...(process.env.MONGO_URL ? { MONGO_URL: process.env.MONGO_URL } : {}),
			...extra
		});
	}

	/** Whether the gateway's registry lists an available attachments node for each of `replicas`. */
	async function replicasVisible(replicas = REPLICAS): Promise<boolean> {
		const res = await fetch(`${gatewayUrl}/health/cluster`, { headers: authHeaders(admin) });
		const view = (await res.json()) as { nodes: { nodeId: string; available: boolean; services: string[] }[] };
		return replicas.every(id => view.nodes.some(node => node.nodeId === id && node.available && node.services.includes("attachments")));
	}

	beforeAll(async () => {
		cluster = await startCluster("memos-replicas-");
		s3rver = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: path.join(cluster.dataRoot, "s3") });
		const { port: s3Port } = await s3rver.run();
		replicaEnv = {
			S3_ENDPOINT: "127.0.0.1",
			S3_PORT: String(s3Port),
			S3_USE_SSL: "false",
			S3_ACCESS_KEY: "S3RVER",
			S3_SECRET_KEY: "S3RVER",
			S3_BUCKET: "memos-replicas",
			// Replicas of a service share one store (issue 16.7): without MONGO_URL, one SQLite file.
			DATA_DIR: path.join(cluster.dataRoot, "attachments")
		};

		await startService("gateway", "gateway");
		gatewayUrl = cluster.gatewayUrl;
		await startService("auth", "auth");
		await startService("instance", "instance");
		await startService("memos", "memos,spaces,ai");
		await waitFor("the profile through the gateway", async () => ((await fetch(`${gatewayUrl}/api/v1/instance/profile`)).status === 200 ? true : undefined));
		await signUp(gatewayUrl, "admin");
		admin = await signIn(gatewayUrl, "admin");
		// One after the other, so that only the first creates the bucket.
		for (const replica of REPLICAS) {
			await startService(replica, "attachments", replicaEnv);
			await waitFor(replica, async () => ((await replicasVisible([replica])) ? true : undefined));
		}
		const storage = await fetch(`${gatewayUrl}/api/v1/instance/settings/STORAGE?updateMask=storage_setting.upload_size_limit_mb`, {
			method: "PATCH",
			headers: authHeaders(admin),
			body: JSON.stringify({ storageSetting: { uploadSizeLimitMb: "100" } })
		});
		expect(storage.status).toBe(200);
	});

	afterAll(async () => {
		await s3rver?.close();
		await cluster?.stop();
	});

	const upload = (body: Record<string, unknown>) =>
		fetch(`${gatewayUrl}/api/v1/attachments:upload`, { method: "POST", headers: authHeaders(admin), body: JSON.stringify(body), signal: AbortSignal.timeout(120000) });

	/** The replica holding a session: the upload id names it (`<random>.<node id in base64url>`). */
	const holderOf = (uploadId: string) => Buffer.from(uploadId.split(".")[1] as string, "base64url").toString("utf8");

	test(
		"a 100 MiB upload in 25 chunks completes whichever replica each call reaches, and downloads byte-identical",
		async () => {
			const sourceHash = createHash("sha256");

			// The setting reaches the replicas through the update event; until then the old limit answers 400.
			const opened = await waitFor(
				"the raised upload limit",
				async () => {
					const res = await upload({ spec: { filename: "big.bin", size: String(UPLOAD_SIZE), attachmentId: "replicated" } });
					return res.status === 200 ? ((await res.json()) as { uploadId: string }) : undefined;
				},
				60000
			);
			const holder = holderOf(opened.uploadId);
			expect(REPLICAS).toContain(holder);

			let attachment: { name: string; size: string } | undefined;
			for (let offset = 0, n = 0; offset < UPLOAD_SIZE; offset += CHUNK, n++) {
				const bytes = uploadBytes(offset);
				sourceHash.update(bytes);
				const res = await upload({ uploadId: opened.uploadId, offset: String(offset), content: bytes.toString("base64") });
				expect({ offset, status: res.status, error: res.status === 200 ? "" : await res.text() }).toEqual({ offset, status: 200, error: "" });
				const body = (await res.json()) as { nextOffset: string; attachment?: { name: string; size: string } };
				expect(body.nextOffset).toBe(String(Math.min(offset + CHUNK, UPLOAD_SIZE)));
				// Status queries too reach either replica and answer the same state.
				if (n % 5 === 0) expect(((await (await upload({ uploadId: opened.uploadId })).json()) as { nextOffset: string }).nextOffset).toBe(body.nextOffset);
				attachment = body.attachment;
			}
			expect(attachment).toMatchObject({ name: "attachments/replicated", size: String(UPLOAD_SIZE) });
			const sourceSha = sourceHash.digest("hex");

			const file = await fetch(`${gatewayUrl}/file/attachments/replicated`, { headers: { Authorization: `Bearer ${admin.accessToken}` }, signal: AbortSignal.timeout(120000) });
			expect(file.status).toBe(200);
			expect(file.headers.get("etag")).toBe(`"${sourceSha}"`);
			const hash = createHash("sha256");
			let received = 0;
			for await (const chunk of file.body as unknown as AsyncIterable<Uint8Array>) {
				hash.update(chunk);
				received += chunk.length;
			}
			expect(received).toBe(UPLOAD_SIZE);
			expect(hash.digest("hex")).toBe(sourceSha);

			const range = await fetch(`${gatewayUrl}/file/attachments/replicated`, { headers: { Authorization: `Bearer ${admin.accessToken}`, Range: "bytes=50000000-50000009" } });
			expect(range.status).toBe(206);
			expect(Buffer.from(await range.arrayBuffer()).equals(uploadBytes(50000000, 10))).toBe(true);
		},
		300000
	);

	test("a session whose node is gone is NOT_FOUND from any replica", async () => {
		const alive = REPLICAS.filter(id => cluster.procs[id]?.child.exitCode === null && cluster.procs[id]?.child.signalCode === null);
		const res = await upload({ spec: { filename: "lost.bin", size: "8" } });
		expect(res.status).toBe(200);
		const { uploadId } = (await res.json()) as { uploadId: string };
		const holder = holderOf(uploadId);
		expect(alive).toContain(holder);
		if (alive.length < 2) await startService(REPLICAS.find(id => id !== holder) as string, "attachments", replicaEnv);
		await waitFor("both attachments replicas", async () => ((await replicasVisible()) ? true : undefined));
		// Every node notices a killed node on its own heartbeat time-out; the next test's purge goes
		// from the memos node to attachments, so it waits for that node's registry too.
		const dropped = new RegExp(`Node '${holder}' disconnected`, "g");
		const droppedByMemos = () => (cluster.procs.memos?.output().match(dropped) ?? []).length;
		const droppedBefore = droppedByMemos();
		await cluster.procs[holder]?.stop("SIGKILL");
		await waitFor("the registry to drop the session's node", async () => ((await replicasVisible()) ? undefined : true));
		await waitFor("the memos node's registry to drop the session's node", async () => (droppedByMemos() > droppedBefore ? true : undefined));
		for (let i = 0; i < 3; i++) {
			const lost = await upload({ uploadId, offset: "0", content: Buffer.from("abcdefgh").toString("base64") });
			expect(lost.status).toBe(404);
			expect(await lost.json()).toMatchObject({ code: 5, details: [] });
		}
	});

	test("memo links, memo responses, the refresh-cookie download and a purge work across the memos and attachments processes", async () => {
		// The previous test leaves one replica, whose own SQLite file holds what this test creates.
		const api = (method: string, route: string, body?: unknown) =>
			fetch(`${gatewayUrl}/api/v1${route}`, { method, headers: authHeaders(admin), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
		const memo = (await (await api("POST", "/memos", { content: "with a file" })).json()) as { name: string };
		const created = await api("POST", "/attachments", { filename: "note.txt", content: Buffer.from("across processes").toString("base64"), memo: memo.name });
		expect(created.status).toBe(200);
		const attachment = (await created.json()) as { name: string };
		const got = (await (await api("GET", `/${memo.name}`)).json()) as { attachments: { name: string }[] };
		expect(got.attachments.map(a => a.name)).toEqual([attachment.name]);
		expect(((await (await api("GET", `/${memo.name}/attachments`)).json()) as { attachments: { name: string }[] }).attachments.map(a => a.name)).toEqual([attachment.name]);
		const file = await fetch(`${gatewayUrl}/file/${attachment.name}`, { headers: { Cookie: admin.cookie } });
		expect(file.status).toBe(200);
		expect(await file.text()).toBe("across processes");
		expect((await api("DELETE", `/${memo.name}?force=true`)).status).toBe(200);
		expect((await fetch(`${gatewayUrl}/file/${attachment.name}`, { headers: { Cookie: admin.cookie } })).status).toBe(404);
	});
});
