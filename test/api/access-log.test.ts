import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { GATEWAY_LISTENING } from "../support/cluster.js";
import { startProcess, waitFor, type Proc } from "../support/processes.js";
import { authHeaders, signIn, signUp } from "../support/users.js";

/** The access log as an operator sees it: the app's own process at LOG_LEVEL=info (run `npm run build` first). */
const MAIN = path.resolve("dist/services/main.js");

type Line = Record<string, unknown>;

describe("access log", () => {
	let proc: Proc;
	let baseUrl: string;
	let dataDir: string;

	beforeAll(async () => {
		dataDir = await mkdtemp(path.join(os.tmpdir(), "memos-access-log-"));
		// Port 0: the app binds a free port itself and reports it (no port picked here and taken by another socket).
		proc = startProcess(process.execPath, [MAIN], {
			HOST: "127.0.0.1",
			PORT: "0",
			HEALTH_PORT: "0",
			METRICS_ENABLED: "false",
			LOG_LEVEL: "info",
			DATA_DIR: dataDir
		});
		baseUrl = (await proc.reported("the app's port", GATEWAY_LISTENING))[1] as string;
		await waitFor("the app", async () => ((await fetch(`${baseUrl}/readyz`)).status === 200 ? true : undefined));
	}, 60000);

	afterAll(async () => {
		await proc?.stop();
		await rm(dataDir, { recursive: true, force: true });
	});

	function linesOf(requestId: string): Line[] {
		return proc
			.output()
			.split("\n")
			.filter(text => text.startsWith("{") && text.includes(requestId))
			.map(text => JSON.parse(text) as Line);
	}

	function accessLine(requestId: string): Promise<Line> {
		return waitFor(`the access line of ${requestId}`, async () => linesOf(requestId).find(line => line.durationMs !== undefined));
	}

	test("one info line per request: method, route template, status, duration, request id and the caller's user id", async () => {
		await signUp(baseUrl, "alice");
		const alice = await signIn(baseUrl, "alice");
		const memoId = "accessLogProbe12345";
		const signedIn = await fetch(`${baseUrl}/api/v1/memos/${memoId}?view=secret-query`, { headers: { ...authHeaders(alice), "X-Request-Id": "access-1" } });
		const anonymous = await fetch(`${baseUrl}/api/v1/instance/profile`, { headers: { "X-Request-Id": "access-2" } });

		const first = await accessLine("access-1");
		expect(first).toMatchObject({ level: 30, method: "GET", route: "/api/v1/memos/{memo}", status: signedIn.status, requestId: "access-1" });
		expect(typeof first.durationMs).toBe("number");
		expect(first.userId).toEqual(expect.any(String));
		const second = await accessLine("access-2");
		expect(second).toMatchObject({ method: "GET", route: "/api/v1/instance/profile", status: anonymous.status, requestId: "access-2", userId: null });

		// One line each: moleculer-web's own request and response lines are off.
		expect(linesOf("access-1")).toHaveLength(1);
		expect(linesOf("access-2")).toHaveLength(1);
		// The template, never the concrete path or the query.
		expect(proc.output()).not.toContain(memoId);
		expect(proc.output()).not.toContain("secret-query");
	});

	test("an unexpected failure: a generic INTERNAL answer, and one error line with the error (message, code, stack) and the request id", async () => {
		await signUp(baseUrl, "bob");
		const bob = await signIn(baseUrl, "bob");
		// A file where the blob store stages its writes: every put fails in a way no client caused.
		const staging = path.join(dataDir, "blobs", ".tmp");
		await rm(staging, { recursive: true, force: true });
		await writeFile(staging, "not a folder");
		try {
			const res = await fetch(`${baseUrl}/api/v1/attachments`, {
				method: "POST",
				headers: { ...authHeaders(bob), "X-Request-Id": "failure-1" },
				body: JSON.stringify({ filename: "a.txt", content: "aGVsbG8=" })
			});
			expect(res.status).toBe(500);
			expect(await res.json()).toEqual({ code: 13, message: "internal error", details: [] });
			const line = await waitFor("the failure's log line", async () => linesOf("failure-1").find(entry => entry.msg === "request failed"));
			expect(line).toMatchObject({ level: 50, requestId: "failure-1" });
			const err = line.err as Record<string, unknown>;
			expect(err).toMatchObject({ message: expect.stringContaining(".tmp"), code: expect.stringMatching(/^E[A-Z]+$/) });
			expect(err.stack).toEqual(expect.stringContaining(String(err.message)));
			expect(String(err.stack).split("\n").length).toBeGreaterThan(1);
		} finally {
			await rm(staging, { force: true });
		}
	});

	test("a request no route takes is logged under `unmatched`", async () => {
		const res = await fetch(`${baseUrl}/no/such/path`, { headers: { "X-Request-Id": "access-3" } });
		expect(res.status).toBe(404);
		expect(await accessLine("access-3")).toMatchObject({ method: "GET", route: "unmatched", status: 404, userId: null });
	});
});
