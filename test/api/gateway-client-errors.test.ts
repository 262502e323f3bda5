import net from "node:net";
import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";

let app: EmbeddedApp;

beforeAll(async () => {
	app = await startEmbeddedApp();
});

afterAll(async () => {
	await app.stop();
});

function rawRequest(text: string): Promise<string> {
	const { port } = new URL(app.baseUrl);
	return new Promise((resolve, reject) => {
		const socket = net.connect(Number(port), "127.0.0.1", () => socket.end(text));
		let answer = "";
		socket.on("data", chunk => (answer += String(chunk)));
		socket.on("end", () => resolve(answer));
		socket.on("error", reject);
	});
}

describe("requests the HTTP parser refuses", () => {
	test("a huge Authorization header gets a Status body, not a bare 431", async () => {
		const res = await fetch(`${app.baseUrl}/api/v1/auth/me`, { headers: { Authorization: `Bearer ${"a".repeat(40_000)}` } });
		expect(res.status).toBe(400);
		expect(await res.json()).toEqual({ code: 3, message: "request headers are too large", details: [] });
	});

	test("a malformed request line gets a Status body", async () => {
		const answer = await rawRequest("GARBAGE\r\n\r\n");
		expect(answer).toMatch(/^HTTP\/1\.1 400 /);
		expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toEqual({ code: 3, message: "malformed HTTP request", details: [] });
	});
});
