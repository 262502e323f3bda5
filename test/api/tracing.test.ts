import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { waitFor } from "../support/processes.js";

/** Spans exported to a Zipkin v2 receiver (a real HTTP server on loopback), continuing a caller's W3C trace. */
interface ZipkinSpan {
	traceId: string;
	id: string;
	parentId?: string;
	name: string;
	localEndpoint: { serviceName: string | null };
}

let receiver: Server;
const received: ZipkinSpan[] = [];
let app: EmbeddedApp;

beforeAll(async () => {
	receiver = createServer((req, res) => {
		let body = "";
		req.on("data", chunk => (body += String(chunk)));
		req.on("end", () => {
			if (req.method === "POST" && req.url === "/api/v2/spans") {
				received.push(...(JSON.parse(body) as ZipkinSpan[]));
				res.writeHead(202).end();
			} else res.writeHead(404).end();
		});
	});
	await new Promise<void>(resolve => receiver.listen(0, "127.0.0.1", resolve));
	app = await startEmbeddedApp({ TRACING_ZIPKIN_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}` });
});

afterAll(async () => {
	await app?.stop();
	await new Promise(resolve => receiver?.close(resolve));
});

test("a request with a W3C traceparent continues that trace: its spans carry the trace id, the first has the caller's span as parent", async () => {
	const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
	const parentId = "00f067aa0ba902b7";
	const res = await fetch(`${app.baseUrl}/api/v1/instance/profile`, { headers: { traceparent: `00-${traceId}-${parentId}-01` } });
	expect(res.status).toBe(200);
	expect(res.headers.get("x-request-id")).toBe(traceId);

	const spans = await waitFor("the request's spans at the receiver", async () => {
		const ours = received.filter(s => s.traceId === traceId);
		return ours.some(s => s.parentId === parentId) && ours.some(s => s.name === "action 'instance.getProfile'") ? ours : undefined;
	});
	const root = spans.find(s => s.parentId === parentId) as ZipkinSpan;
	expect(root).toMatchObject({ name: "GET /api/v1/instance/profile", id: expect.stringMatching(/^[0-9a-f]{16}$/) });
	// The rest hang below the root, within the same trace.
	for (const span of spans.filter(s => s !== root)) expect(spans.map(s => s.id)).toContain(span.parentId);
});

test("without a traceparent (or with a malformed one) a new trace starts, with a 128-bit id", async () => {
	const res = await fetch(`${app.baseUrl}/api/v1/instance/profile`, { headers: { traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01" } });
	expect(res.status).toBe(200);
	const requestId = res.headers.get("x-request-id") as string;
	const traceId = requestId.replace(/-/g, "");
	expect(traceId).toMatch(/^[0-9a-f]{32}$/);
	const spans = await waitFor("the new trace's spans", async () => {
		const ours = received.filter(s => s.traceId === traceId);
		return ours.some(s => s.parentId === undefined) ? ours : undefined;
	});
	expect(spans.every(s => s.traceId === traceId)).toBe(true);
});
