import http from "node:http";
import { shiftAuthClock, type AuthClock } from "../support/auth-clock.js";
import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { DEFAULT_PASSWORD, signUp } from "../support/users.js";

let app: EmbeddedApp;
let clock: AuthClock;

beforeAll(async () => {
	app = await startEmbeddedApp();
	clock = shiftAuthClock(app);
	for (const username of ["admin", "alice", "bob", "carol", "dave", "erin"]) await signUp(app.baseUrl, username);
});

afterAll(async () => {
	await app.stop();
});

interface Answer {
	status: number;
	retryAfter: string | undefined;
	body: { code?: number; message?: string };
}

/**
 * A password SignIn sent from `localAddress` (any 127.0.0.0/8 address reaches the loopback
 * gateway), so that tests can stand for different clients.
 */
function signInFrom(username: string, password: string, localAddress = "127.0.0.1", headers: Record<string, string> = {}, baseUrl = app.baseUrl): Promise<Answer> {
	const body = JSON.stringify({ passwordCredentials: { username, password } });
	const url = new URL("/api/v1/auth/signin", baseUrl);
	return new Promise((resolve, reject) => {
		const req = http.request(url, { method: "POST", localAddress, headers: { ...headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) } }, res => {
			let text = "";
			res.setEncoding("utf8");
			res.on("data", (chunk: string) => (text += chunk));
			res.on("end", () => {
				const retryAfter = res.headers["retry-after"];
				resolve({ status: res.statusCode ?? 0, retryAfter, body: JSON.parse(text) as Answer["body"] });
			});
			res.on("error", reject);
		});
		req.on("error", reject);
		req.end(body);
	});
}

async function failTimes(username: string, times: number, localAddress?: string): Promise<void> {
	for (let i = 0; i < times; i++) {
		const answer = await signInFrom(username, `wrong guess ${i}`, localAddress);
		expect([answer.status, answer.body.message]).toEqual([400, "unmatched username and password"]);
	}
}

function expectLocked(answer: Answer, seconds: number): void {
	expect(answer.status).toBe(429);
	expect(answer.body.code).toBe(8);
	expect(Number(answer.retryAfter)).toBeGreaterThan(0);
	expect(Number(answer.retryAfter)).toBeLessThanOrEqual(seconds);
}

describe("sign-in throttling (contract 19)", () => {
	test("after 5 wrong passwords the username answers 429 with Retry-After, even to the right password", async () => {
		await failTimes("alice", 5);
		expectLocked(await signInFrom("alice", "wrong again"), 30);
		expectLocked(await signInFrom("alice", DEFAULT_PASSWORD), 30);
		// From another client too: the lock is the username's.
		expectLocked(await signInFrom("alice", DEFAULT_PASSWORD, "127.0.0.5"), 30);
		// Others are not locked out.
		expect((await signInFrom("bob", DEFAULT_PASSWORD)).status).toBe(200);
	});

	test("the lock passes after its back-off: 30 s, then 60 s after one more failure", async () => {
		await failTimes("carol", 5);
		expectLocked(await signInFrom("carol", DEFAULT_PASSWORD), 30);
		clock.advance(30_000);
		await failTimes("carol", 1);
		expectLocked(await signInFrom("carol", DEFAULT_PASSWORD), 60);
		clock.advance(30_000);
		expectLocked(await signInFrom("carol", DEFAULT_PASSWORD), 30);
		clock.advance(30_000);
		expect((await signInFrom("carol", DEFAULT_PASSWORD)).status).toBe(200);
	});

	test("a success resets the username's count", async () => {
		await failTimes("dave", 4);
		expect((await signInFrom("dave", DEFAULT_PASSWORD)).status).toBe(200);
		await failTimes("dave", 4);
		expect((await signInFrom("dave", DEFAULT_PASSWORD)).status).toBe(200);
	});

	test("100 failures from one address lock that address for every username, and no other address", async () => {
		const attacker = "127.0.0.9";
		for (let i = 0; i < 100; i++) {
			const answer = await signInFrom(`ghost${i}`, "wrong guess", attacker);
			expect(answer.status).toBe(400);
		}
		expectLocked(await signInFrom("erin", DEFAULT_PASSWORD, attacker), 30);
		// No proxy is trusted by default: a forwarded address of the attacker's choosing changes nothing.
		expectLocked(await signInFrom("erin", DEFAULT_PASSWORD, attacker, { "X-Forwarded-For": "192.0.2.1" }), 30);
		expect((await signInFrom("erin", DEFAULT_PASSWORD, "127.0.0.10")).status).toBe(200);
	});
});

describe("behind a trusted proxy (TRUSTED_PROXIES)", () => {
	let proxied: EmbeddedApp;

	beforeAll(async () => {
		proxied = await startEmbeddedApp({ TRUSTED_PROXIES: "127.0.0.1" });
		await signUp(proxied.baseUrl, "admin");
	});

	afterAll(async () => {
		await proxied.stop();
	});

	test("the per-address limit counts the forwarded client, not the proxy", async () => {
		const viaProxy = (username: string, password: string, client: string) =>
			signInFrom(username, password, "127.0.0.1", { "X-Forwarded-For": `198.51.100.1, ${client}` }, proxied.baseUrl);
		for (let i = 0; i < 100; i++) expect((await viaProxy(`ghost${i}`, "wrong guess", "203.0.113.50")).status).toBe(400);
		expectLocked(await viaProxy("admin", DEFAULT_PASSWORD, "203.0.113.50"), 30);
		expect((await viaProxy("admin", DEFAULT_PASSWORD, "203.0.113.51")).status).toBe(200);
	});
});
