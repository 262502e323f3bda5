import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A webhook receiver on loopback, as a user would write one: it verifies each request's
 * Standard Webhooks signature (`webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`)
 * with the secret it was given, answers 503 while told to fail, 200 otherwise, and keeps every
 * request it got, in arrival order.
 */

export interface Received {
	webhookId: string;
	/** Whether the signature matched the secret. */
	verified: boolean;
	/** What was answered. */
	status: number;
	body: { url: string; activityType: string; creator: string; memo: { name: string; content: string } & Record<string, unknown> };
}

export interface Receiver {
	url: string;
	received: Received[];
	/** The delivered requests (answered 2xx). */
	delivered(): Received[];
	/** The signing secret signatures are checked with. */
	secret: string;
	/** While true (or a function answering true), requests are answered 503. */
	failing: boolean | (() => boolean);
	close(): Promise<void>;
}

export function verifySignature(secret: string, id: string, timestamp: string, body: string, signatureHeader: string): boolean {
	const key = secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret);
	const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest();
	return signatureHeader
		.split(" ")
		.filter(part => part.startsWith("v1,"))
		.some(part => {
			const given = Buffer.from(part.slice(3), "base64");
			return given.length === expected.length && timingSafeEqual(given, expected);
		});
}

export async function startReceiver(): Promise<Receiver> {
	const receiver: Receiver = {
		url: "",
		received: [],
		delivered: () => receiver.received.filter(r => r.status === 200),
		secret: "",
		failing: false,
		close: () => new Promise(resolve => server.close(() => resolve()))
	};
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (chunk: Buffer) => chunks.push(chunk));
		req.on("end", () => {
			const raw = Buffer.concat(chunks).toString("utf8");
			const id = String(req.headers["webhook-id"] ?? "");
			const verified = verifySignature(receiver.secret, id, String(req.headers["webhook-timestamp"] ?? ""), raw, String(req.headers["webhook-signature"] ?? ""));
			const failing = typeof receiver.failing === "function" ? receiver.failing() : receiver.failing;
			const status = failing || !verified ? 503 : 200;
			receiver.received.push({ webhookId: id, verified, status, body: JSON.parse(raw) as Received["body"] });
			res.writeHead(status, { "Content-Type": "application/json" });
			res.end(status === 200 ? '{"code":0}' : '{"code":1,"message":"down"}');
		});
	});
	await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
	receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
	return receiver;
}
