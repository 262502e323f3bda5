import { once } from "node:events";
import { request, type IncomingMessage } from "node:http";
import { describeCluster, startCluster, type Cluster } from "../support/cluster.js";
import { freePort, waitFor } from "../support/processes.js";
import { authHeaders, signIn, signUp, type Session } from "../support/users.js";

/**
 * Moleculer's transit gauges on `/metrics` in the cluster mode: the requests a node awaits an
 * answer for (`moleculer_transit_requests_active`) and its streams in transfer
 * (`moleculer_transit_streams_send_active`) are current counts, so once every call has been
 * answered both read 0 (Moleculer 0.15.2 added the count at each packet published instead),
 * and while a call streams its body they count it.
 */
const CALLS = 40;
const GAUGES = ["moleculer_transit_requests_active", "moleculer_transit_streams_send_active"];

const UPLOAD_SIZE = 64 * 1024;

/** The value of each of `GAUGES` in an exposition text (absent: undefined). */
function gaugesIn(text: string): Record<string, number | undefined> {
	const values: Record<string, number | undefined> = {};
	for (const gauge of GAUGES) {
		const line = text.split("\n").find(l => l.startsWith(`${gauge}{`) || l.startsWith(`${gauge} `));
		values[gauge] = line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
	}
	return values;
}

describeCluster("transit gauges over NATS", () => {
	let cluster: Cluster;
	let gatewayUrl: string;
	const metricsPorts: Record<string, number> = {};
	let admin: Session;

	const gauges = async (node: string) => gaugesIn(await (await fetch(`http://127.0.0.1:${metricsPorts[node]}/metrics`)).text());

	beforeAll(async () => {
		cluster = await startCluster("memos-transit-gauges-");
		// The gateway alone in its process: every call it makes crosses NATS.
		for (const [name, services] of [
			["gateway", "gateway"],
			["backend", "auth,memos,attachments,spaces,instance,ai"]
		] as const) {
			metricsPorts[name] = await freePort();
			await cluster.start(name, services, { METRICS_PORT: String(metricsPorts[name]) });
		}
		gatewayUrl = cluster.gatewayUrl;
		await waitFor("the profile through the gateway", async () => ((await fetch(`${gatewayUrl}/api/v1/instance/profile`)).status === 200 ? true : undefined));
		await signUp(gatewayUrl, "admin");
		admin = await signIn(gatewayUrl, "admin");
	});

	afterAll(async () => {
		await cluster?.stop();
	});

	test("while a tus PATCH streams its body to the attachments service, the gateway awaits one request and the backend receives one stream", async () => {
		const created = await fetch(`${gatewayUrl}/api/v1/attachments:tus`, {
			method: "POST",
			headers: { ...authHeaders(admin), "Tus-Resumable": "1.0.0", "Upload-Length": String(UPLOAD_SIZE), "Upload-Metadata": `filename ${Buffer.from("held.bin").toString("base64")}` }
		});
		expect(created.status).toBe(201);
		const patch = request(new URL(created.headers.get("location") as string, gatewayUrl), {
			method: "PATCH",
			headers: {
				...authHeaders(admin),
				"Tus-Resumable": "1.0.0",
				"Content-Type": "application/offset+octet-stream",
				"Upload-Offset": "0",
				"Content-Length": String(UPLOAD_SIZE)
			}
		});
		const answered = once(patch, "response") as Promise<[IncomingMessage]>;
		const body = Buffer.alloc(UPLOAD_SIZE, 0x5a);
		patch.write(body.subarray(0, UPLOAD_SIZE / 2));
		await waitFor("the held call in both gauges", async () => {
			const [gateway, backend] = await Promise.all([gauges("gateway"), gauges("backend")]);
			return gateway.moleculer_transit_requests_active === 1 && backend.moleculer_transit_streams_send_active === 1 ? true : undefined;
		});
		patch.end(body.subarray(UPLOAD_SIZE / 2));
		const [res] = await answered;
		res.resume();
		expect(res.statusCode).toBe(204);
	});

	test(`after ${CALLS} calls and a streamed upload and download across nodes, with none in flight, both gauges read 0 on each node`, async () => {
		await Promise.all(
			Array.from({ length: CALLS }, async (_, i) => {
				const res = await fetch(`${gatewayUrl}/api/v1/memos`, { method: "POST", headers: authHeaders(admin), body: JSON.stringify({ content: `memo ${i}` }) });
				expect(res.status).toBe(200);
			})
		);
		const upload = await fetch(`${gatewayUrl}/api/v1/attachments`, {
			method: "POST",
			headers: authHeaders(admin),
			body: JSON.stringify({ filename: "a.txt", content: Buffer.from("streamed across nodes").toString("base64") })
		});
		expect(upload.status).toBe(200);
		const { name } = (await upload.json()) as { name: string };
		const download = await fetch(`${gatewayUrl}/file/${name}`, { headers: authHeaders(admin) });
		expect(await download.text()).toBe("streamed across nodes");

		for (const node of Object.keys(metricsPorts)) {
			let last: Record<string, number | undefined> = {};
			const settled = await waitFor(
				`both gauges of ${node} at 0`,
				async () => {
					last = await gauges(node);
					return GAUGES.every(g => last[g] === 0) ? last : undefined;
				},
				30_000
			).catch(() => last);
			expect({ node, gauges: settled }).toEqual({ node, gauges: Object.fromEntries(GAUGES.map(g => [g, 0])) });
		}
	});
});
