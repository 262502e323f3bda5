import http from "node:http";
import type { AddressInfo } from "node:net";
import { postWebhook } from "../../services/auth/webhooks/post-webhook.js";
import { signatureHeaders } from "../../services/auth/webhooks/signing-secret.js";
import { isPublicAddress } from "../../shared/net/address-guard.js";
import { verifySignature } from "../support/webhook-receiver.js";

/**
 * One delivery attempt against real HTTP servers on loopback (contract 17): the request-forgery
 * guard of 7.12 checks the URL and every redirect, 307/308 repeat the signed POST, other
 * redirects continue with a GET, and the attempt has a time limit.
 */

interface Hit {
	method: string;
	path: string;
	body: string;
	headers: http.IncomingHttpHeaders;
}

let server: http.Server;
let port = 0;
const hits: Hit[] = [];

beforeAll(async () => {
	server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (c: Buffer) => chunks.push(c));
		req.on("end", () => {
			const url = new URL(req.url ?? "/", "http://x");
			hits.push({ method: req.method ?? "", path: url.pathname, body: Buffer.concat(chunks).toString(), headers: req.headers });
			const to = url.searchParams.get("to");
			if (url.pathname === "/redirect" && to !== null) {
				res.writeHead(Number(url.searchParams.get("status") ?? "307"), { Location: to });
				res.end();
			} else if (url.pathname === "/loop") {
				res.writeHead(307, { Location: "/loop" });
				res.end();
			} else if (url.pathname === "/hang") {
				// Never answers: the attempt's time limit ends it.
			} else if (url.pathname === "/fail") {
				res.writeHead(500);
				res.end("no");
			} else {
				res.writeHead(200);
				res.end("{}");
			}
		});
	});
	await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
	port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
	server.closeAllConnections();
	await new Promise(resolve => server.close(resolve));
});

beforeEach(() => {
	hits.length = 0;
});

// Stands in for a public receiver: the test server's own address is allowed, no other non-public one.
const limits = { timeoutMs: 2000, allowedAddress: (address: string) => address === "127.0.0.1" || isPublicAddress(address) };
const body = JSON.stringify({ activityType: "memos.memo.created" });
const headers = signatureHeaders("whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTMyYg==", "msg_1", 1_700_000_000, body);

test("a 2xx answer is a success; the POST carries the body and its Standard Webhooks signature", async () => {
	expect(await postWebhook(`http://127.0.0.1:${port}/ok`, headers, body, limits)).toEqual({ ok: true, status: 200 });
	const [hit] = hits;
	expect(hit).toMatchObject({ method: "POST", path: "/ok", body });
	expect(hit!.headers["content-type"]).toBe("application/json");
	expect(verifySignature("whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTMyYg==", "msg_1", "1700000000", hit!.body, String(hit!.headers["webhook-signature"]))).toBe(true);
	expect(verifySignature("another secret", "msg_1", "1700000000", hit!.body, String(hit!.headers["webhook-signature"]))).toBe(false);
});

test("any other answer is a failure", async () => {
	expect(await postWebhook(`http://127.0.0.1:${port}/fail`, headers, body, limits)).toEqual({ ok: false, reason: "HTTP 500" });
});

test.each([
	["IPv6 loopback", "http://[::1]:PORT/ok"],
	["another loopback address", "http://127.0.0.2:PORT/ok"],
	["a private address", "http://10.0.0.1:PORT/ok"],
	["an IPv4-mapped loopback", "http://[::ffff:127.0.0.1]:PORT/ok"],
	["the metadata address of clouds", "http://169.254.169.254/latest/meta-data/"]
])("a redirect to %s is refused and never followed", async (_what, target) => {
	const to = target.replace("PORT", String(port));
	const outcome = await postWebhook(`http://127.0.0.1:${port}/redirect?to=${encodeURIComponent(to)}`, headers, body, limits);
	expect(outcome).toEqual({ ok: false, reason: expect.stringContaining("non-public") });
	expect(hits.map(hit => hit.path)).toEqual(["/redirect"]);
});

test("the URL itself is checked: a private receiver is refused without a request", async () => {
	const outcome = await postWebhook(`http://127.0.0.1:${port}/ok`, headers, body, { ...limits, allowedAddress: isPublicAddress });
	expect(outcome).toEqual({ ok: false, reason: expect.stringContaining("non-public") });
	expect(hits).toEqual([]);
});

test("307 repeats the signed POST; 303 continues with a GET without the body", async () => {
	const target = `http://127.0.0.1:${port}/ok`;
	expect(await postWebhook(`http://127.0.0.1:${port}/redirect?status=307&to=${encodeURIComponent(target)}`, headers, body, limits)).toMatchObject({ ok: true });
	expect(hits.map(hit => [hit.method, hit.path, hit.body, hit.headers["webhook-id"]])).toEqual([
		["POST", "/redirect", body, "msg_1"],
		["POST", "/ok", body, "msg_1"]
	]);
	hits.length = 0;
	expect(await postWebhook(`http://127.0.0.1:${port}/redirect?status=303&to=${encodeURIComponent(target)}`, headers, body, limits)).toMatchObject({ ok: true });
	expect(hits.map(hit => [hit.method, hit.path, hit.body])).toEqual([
		["POST", "/redirect", body],
		["GET", "/ok", ""]
	]);
});

test("too many redirects, a redirect to another scheme and an answer that never comes are failures", async () => {
	expect(await postWebhook(`http://127.0.0.1:${port}/loop`, headers, body, limits)).toEqual({ ok: false, reason: "too many redirects" });
	// The request and 10 redirects.
	expect(hits).toHaveLength(11);
	expect(await postWebhook(`http://127.0.0.1:${port}/redirect?to=${encodeURIComponent("file:///etc/passwd")}`, headers, body, limits)).toEqual({ ok: false, reason: expect.stringContaining("not http") });
	expect(await postWebhook(`http://127.0.0.1:${port}/hang`, headers, body, { ...limits, timeoutMs: 300 })).toEqual({ ok: false, reason: "timed out" });
});
