import path from "node:path";
import S3rver from "s3rver";
import { describeCluster, startCluster, type Cluster } from "../support/cluster.js";
import { startCutProxy } from "../support/cut-proxy.js";
import { memoryOf, resetPeakMemory, waitFor } from "../support/processes.js";
import { streamedPatch } from "../support/streamed-patch.js";
import { digestOfBody, patternBytes, tusUpload, writePatternFile } from "../support/tus-client.js";
import { authHeaders, signIn, signUp, type Session } from "../support/users.js";

/**
 * tus uploads with the stock tus-js-client through a gateway process, two attachments
 * replicas over a real nats-server and blobs in S3 (s3rver): every request of an upload
 * reaches the replica holding it whichever one the gateway picks, the bytes cross NATS as
 * Moleculer streams, and the gateway holds only what streaming needs.
 *
 * Documents: MongoDB when MONGO_URL is set; otherwise the replicas share one SQLite file (one
 * data directory), as replicas of a service must (issue 16.7).
 */
const MiB = 1024 * 1024;
const REPLICAS = ["attachments-a", "attachments-b"];
const UPLOAD_SIZE = 30 * MiB;

describeCluster("tus uploads over two attachments replicas", () => {
	let cluster: Cluster;
	let gatewayUrl: string;
	let s3rver: S3rver;
	let admin: Session;
	let file: string;
	let fileSha: string;

	async function replicasVisible(): Promise<boolean> {
		const res = await fetch(`${gatewayUrl}/health/cluster`, { headers: authHeaders(admin) });
		const view = (await res.json()) as { nodes: { nodeId: string; available: boolean; services: string[] }[] };
		return REPLICAS.every(id => view.nodes.some(node => node.nodeId === id && node.available && node.services.includes("attachments")));
	}

	/** The attachment's bytes: SHA-256 and length, from whichever replica has its record. */
	async function download(name: string): Promise<{ sha: string; size: number }> {
		return waitFor(`the bytes of ${name}`, async () => {
			const res = await fetch(`${gatewayUrl}/file/${name}`, { headers: { Authorization: `Bearer ${admin.accessToken}` } });
			if (res.status !== 200) {
				await res.arrayBuffer();
				return undefined;
			}
			return digestOfBody(res.body);
		});
	}

	beforeAll(async () => {
		cluster = await startCluster("memos-tus-");
		s3rver = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: path.join(cluster.dataRoot, "s3") });
		const { port: s3Port } = await s3rver.run();
		const replicaEnv = {
			S3_ENDPOINT: "127.0.0.1",
			S3_PORT: String(s3Port),
			S3_USE_SSL: "false",
			S3_ACCESS_KEY: "S3RVER",
			S3_SECRET_KEY: "S3RVER",
			S3_BUCKET: "memos-tus",
			// Replicas of a service share one store (issue 16.7): without MONGO_URL, one SQLite file.
			DATA_DIR: path.join(cluster.dataRoot, "attachments")
		};
		const mongo: Record<string, string> = process.env.MONGO_URL ? { MONGO_URL: process.env.MONGO_URL } : {};
		await cluster.start("gateway", "gateway", { METRICS_PORT: "0" });
		gatewayUrl = cluster.gatewayUrl;
		await cluster.start("auth", "auth", { METRICS_PORT: "0", ...mongo });
		await cluster.start("instance", "instance", { METRICS_PORT: "0", ...mongo });
		await cluster.start("memos", "memos,spaces,ai", { METRICS_PORT: "0", ...mongo });
		await waitFor("the profile through the gateway", async () => ((await fetch(`${gatewayUrl}/api/v1/instance/profile`)).status === 200 ? true : undefined));
		await signUp(gatewayUrl, "admin");
		admin = await signIn(gatewayUrl, "admin");
		// One after the other, so that only the first creates the bucket.
		await cluster.start(REPLICAS[0] as string, "attachments", { METRICS_PORT: "0", ...mongo, ...replicaEnv });
		await waitFor("the first replica", async () => {
			const res = await fetch(`${gatewayUrl}/health/cluster`, { headers: authHeaders(admin) });
			const view = (await res.json()) as { nodes: { nodeId: string; available: boolean }[] };
			return view.nodes.some(node => node.nodeId === REPLICAS[0] && node.available) ? true : undefined;
		});
		await cluster.start(REPLICAS[1] as string, "attachments", { METRICS_PORT: "0", ...mongo, ...replicaEnv });
		await waitFor("both attachments replicas", async () => ((await replicasVisible()) ? true : undefined));
		file = path.join(cluster.dataRoot, "upload.bin");
		fileSha = await writePatternFile(file, UPLOAD_SIZE);
	});

	afterAll(async () => {
		await s3rver?.close();
		await cluster?.stop();
	});

	test("a 30 MiB file in 4 MiB PATCHes: each reaches the replica holding the upload, and the download is byte-identical", async () => {
		const result = await tusUpload({ endpoint: `${gatewayUrl}/api/v1/attachments:tus`, accessToken: admin.accessToken, path: file, metadata: { filename: "big.bin", attachmentId: "tus-big" }, chunkSize: 4 * MiB });
		expect(result.attachment).toBe("attachments/tus-big");
		expect(REPLICAS).toContain(Buffer.from(result.url.split(".").pop() as string, "base64url").toString("utf8"));
		expect(await download("attachments/tus-big")).toEqual({ sha: fileSha, size: UPLOAD_SIZE });
		const range = await waitFor("a range of the upload", async () => {
			const res = await fetch(`${gatewayUrl}/file/attachments/tus-big`, { headers: { Authorization: `Bearer ${admin.accessToken}`, Range: "bytes=20000000-20000009" } });
			return res.status === 206 ? Buffer.from(await res.arrayBuffer()) : (await res.arrayBuffer(), undefined);
		});
		expect(range.equals(patternBytes(20000000, 20000009))).toBe(true);
	});

	test("a PATCH cut mid-body: the client resumes from the offset the holder kept", async () => {
		const proxy = await startCutProxy(gatewayUrl, "PATCH", 7 * MiB);
		try {
			const offsets: number[] = [];
			const result = await tusUpload({
				endpoint: `${proxy.url}/api/v1/attachments:tus`,
				accessToken: admin.accessToken,
				path: file,
				metadata: { filename: "cut.bin", attachmentId: "tus-cut" },
				onRequest: req => {
					if (req.getMethod() === "PATCH") offsets.push(Number(req.getHeader("Upload-Offset")));
				}
			});
			expect(proxy.cut()).toBe(true);
			expect(result.attachment).toBe("attachments/tus-cut");
			expect(offsets[0]).toBe(0);
			const resumedAt = offsets[offsets.length - 1] as number;
			expect(resumedAt).toBeGreaterThan(0);
			expect(resumedAt).toBeLessThanOrEqual(7 * MiB);
		} finally {
			await proxy.close();
		}
		expect(await download("attachments/tus-cut")).toEqual({ sha: fileSha, size: UPLOAD_SIZE });
	});

	test("8 concurrent 30 MiB uploads, each in one PATCH: all become attachments, and the gateway's peak RSS grows by at most 100 MiB while they carry 240 MiB (issue 19)", async () => {
		const gatewayPid = cluster.procs.gateway?.child.pid;
		const uploads = await Promise.all(
			Array.from({ length: 8 }, async (_, i) => {
				const res = await fetch(`${gatewayUrl}/api/v1/attachments:tus`, {
					method: "POST",
					headers: { Authorization: `Bearer ${admin.accessToken}`, "Tus-Resumable": "1.0.0", "Upload-Length": String(UPLOAD_SIZE), "Upload-Metadata": `filename ${Buffer.from(`many-${i}.bin`).toString("base64")}` }
				});
				expect(res.status).toBe(201);
				return new URL(res.headers.get("location") as string, gatewayUrl);
			})
		);
		const block = Buffer.alloc(MiB, 0x5a);
		await resetPeakMemory(gatewayPid);
		const before = await memoryOf(gatewayPid);
		const answers = await Promise.all(uploads.map(url => streamedPatch(url, { authorization: `Bearer ${admin.accessToken}` }, UPLOAD_SIZE, block)));
		const after = await memoryOf(gatewayPid);
		expect(answers.map(a => a.status)).toEqual(Array(8).fill(204));
		for (const answer of answers) expect((await download(answer.attachment as string)).size).toBe(UPLOAD_SIZE);
		// The gateway holds at most ~4 MiB queued for its NATS socket plus a chunk per upload: its
		// senders wait while the socket drains (nats-transporter.ts). RSS also counts garbage V8 has not
		// collected yet. Measured (2026-11-26, load 20-25): +8 MiB with that flow control, +110 MiB
		// without it (the socket's write queue), +119 MiB in an earlier profile.
		expect(after.peakMiB - before.rssMiB).toBeLessThanOrEqual(100);
	});
});
