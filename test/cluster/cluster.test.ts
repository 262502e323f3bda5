import { SETTINGS_CACHE_TTL_MS } from "../../shared/settings/instance-settings.mixin.js";
import { describeCluster, startCluster, type Cluster } from "../support/cluster.js";
import { waitFor, type Proc } from "../support/processes.js";
import { TRANSCRIPTION_API_KEY, TranscriptionServer } from "../support/transcription-server.js";
import { authHeaders, signIn, signUp } from "../support/users.js";

/** The cluster mode for real: a nats-server and one OS process per service group. */
/**
 * Every call's time-out, which ends a call to the killed process at worst: a guard against hangs,
 * not a bound on speed. At 3 s, calls through a loaded machine (a sign-up's password hashing
 * beside two CPU burners, issue 20) outlasted it and answered 503.
 */
const REQUEST_TIMEOUT_MS = 30_000;

describeCluster("cluster mode over NATS", () => {
	let cluster: Cluster;
	let gatewayUrl: string;

	/** A restarted group gets a new node id and keeps its data. */
	function startService(services: string): Promise<Proc> {
		return cluster.start(services, services, {
			NODE_ID: `${services.replace(/,/g, "-")}-${Date.now()}`,
			METRICS_PORT: "0",
			REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS)
		});
	}

	const profile = () => fetch(`${gatewayUrl}/api/v1/instance/profile`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS + 5000) });

	async function waitForProfile(): Promise<void> {
		await waitFor("the profile through the gateway", async () => ((await profile()).status === 200 ? true : undefined));
	}

	beforeAll(async () => {
		cluster = await startCluster("memos-cluster-");
		await startService("gateway");
		gatewayUrl = cluster.gatewayUrl;
		await startService("auth");
		await startService("instance");
		await startService("memos,attachments");
		await startService("spaces");
		await startService("ai");
		await waitForProfile();
	});

	afterAll(async () => {
		await cluster?.stop();
	});

	test("the profile is served through the gateway by the instance and auth processes", async () => {
		const res = await profile();
		expect(res.status).toBe(200);
		const body = await res.json();
		expect(body).toMatchObject({ version: "0.0.1", needsSetup: true, accessMode: "INSTANCE_ACCESS_MODE_PRIVATE" });
		expect(body).not.toHaveProperty("admin");
	});

	test("the gateway is ready once every required service has a node", async () => {
		const res = await waitFor("gateway readiness", async () => {
			const r = await fetch(`${gatewayUrl}/readyz`);
			return r.status === 200 ? r : undefined;
		});
		expect(await res.json()).toEqual({ status: "ready" });
	});

	test("transcription runs in the ai process, which drops its cached AI setting when the instance process updates it; audio larger than a NATS message crosses as a stream", async () => {
		// Two providers the setting switches between; each records the requests it receives.
		const transcribers = [new TranscriptionServer(), new TranscriptionServer()];
		const endpoints = [await transcribers[0].start(), await transcribers[1].start()];
		try {
			await signUp(gatewayUrl, "admin");
			const admin = await signIn(gatewayUrl, "admin");
			// 3 MiB: over NATS's default 1 MB message limit, so it only arrives whole as a call stream.
			const wav = Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WAVEfmt "), Buffer.alloc(3 * 1024 * 1024, 7)]);
			const transcribe = () =>
				fetch(`${gatewayUrl}/api/v1/ai:transcribe`, { method: "POST", headers: authHeaders(admin), body: JSON.stringify({ audio: { content: wav.toString("base64"), filename: "note.wav" } }) });
			const unconfigured = await transcribe();
			expect(((await unconfigured.json()) as { code: number }).code).toBe(9);

			// A round caches the setting in the ai process, switches it to the other provider and
			// waits for that provider's answer. Only an answer that came while the cached copy was
			// alive shows the update event refreshed it; a round slower than that (a loaded machine)
			// shows nothing and the next one switches back. Without the event no round can show it.
			const rounds: string[] = [];
			for (let round = 0; round < 3 && rounds.at(-1) !== "refreshed"; round++) {
				const target = transcribers[round % 2] as TranscriptionServer;
				// This call caches the current setting: that copy expires no sooner than cachedAfter + its lifetime.
				const cachedAfter = Date.now();
				if (round > 0) expect((await transcribe()).status).toBe(200);
				const receivedBefore = target.received.length;
				const aiSetting = { providers: [{ id: "local", title: "Local", type: "OPENAI", endpoint: endpoints[round % 2], apiKey: TRANSCRIPTION_API_KEY }], transcription: { providerId: "local" } };
				const patched = await fetch(`${gatewayUrl}/api/v1/instance/settings/AI`, { method: "PATCH", headers: authHeaders(admin), body: JSON.stringify({ aiSetting }) });
				expect(patched.status).toBe(200);
				const answer = await waitFor(
					"the ai process to use the new setting",
					async () => {
						const res = await transcribe();
						const body = await res.text();
						return res.status === 200 && target.received.length > receivedBefore ? body : undefined;
					},
					SETTINGS_CACHE_TTL_MS
				).catch(() => undefined);
				rounds.push(answer === undefined ? "not answered" : Date.now() < cachedAfter + SETTINGS_CACHE_TTL_MS ? "refreshed" : "answered late");
				if (answer !== undefined) {
					expect(JSON.parse(answer)).toEqual({ text: "Buy milk and call Anna." });
					expect(target.received.at(-1)?.bytes.equals(wav)).toBe(true);
				}
			}
			expect(rounds.at(-1)).toBe("refreshed");
		} finally {
			await Promise.all(transcribers.map(t => t.stop()));
		}
	});

	test("users sign up, sign in and refresh through the gateway with auth in its own process", async () => {
		await signUp(gatewayUrl, "carol");
		const carol = await signIn(gatewayUrl, "carol");
		const me = await fetch(`${gatewayUrl}/api/v1/auth/me`, { headers: authHeaders(carol) });
		expect(me.status).toBe(200);
		expect(((await me.json()) as { user: { name: string } }).user.name).toBe("users/carol");
		const refreshed = await fetch(`${gatewayUrl}/api/v1/auth/refresh`, { method: "POST", headers: { Cookie: carol.cookie } });
		expect(refreshed.status).toBe(200);
		// The cleared cookie set by the auth process travels back with its error.
		const rejected = await fetch(`${gatewayUrl}/api/v1/auth/refresh`, { method: "POST", headers: { Cookie: "memos_refresh=bad" } });
		expect(rejected.status).toBe(401);
		expect(rejected.headers.getSetCookie()[0]).toMatch(/^memos_refresh=; .*Max-Age=0$/);
		const forged = await fetch(`${gatewayUrl}/api/v1/auth/me`, { headers: authHeaders(`${carol.accessToken}x`) });
		expect(forged.status).toBe(401);
	});

	test("a member removed in the spaces process loses the space's memos in the memos process on the next request", async () => {
		await signUp(gatewayUrl, "owner");
		await signUp(gatewayUrl, "guest");
		const [owner, guest] = [await signIn(gatewayUrl, "owner"), await signIn(gatewayUrl, "guest")];
		const call = (session: typeof owner, method: string, route: string, body?: unknown) =>
			fetch(`${gatewayUrl}/api/v1/${route}`, { method, headers: authHeaders(session), body: body === undefined ? undefined : JSON.stringify(body) });
		expect((await call(owner, "POST", "spaces?spaceId=crew", { displayName: "Crew" })).status).toBe(200);
		expect((await call(owner, "POST", "spaces/crew/members", { user: "users/guest" })).status).toBe(200);
		const created = await call(owner, "POST", "memos", { content: "crew only", visibility: "SPACE", space: "spaces/crew" });
		expect(created.status).toBe(200);
		const { name } = (await created.json()) as { name: string };
		// Read twice so the memos process holds the guest's memberships in its cache.
		expect((await call(guest, "GET", name)).status).toBe(200);
		expect((await call(guest, "GET", name)).status).toBe(200);
		expect((await call(owner, "DELETE", "spaces/crew/members/guest")).status).toBe(200);
		expect((await call(guest, "GET", name)).status).toBe(403);
		const listed = (await (await call(guest, "GET", "memos")).json()) as { memos: { name: string }[] };
		expect(listed.memos.map(m => m.name)).not.toContain(name);
	});

	test("comments, relations, reactions, share links and DeleteUser's clean-up through the gateway with memos in its own process", async () => {
		await signUp(gatewayUrl, "writer");
		await signUp(gatewayUrl, "reader");
		const [writer, reader] = [await signIn(gatewayUrl, "writer"), await signIn(gatewayUrl, "reader")];
		const call = async (session: typeof writer | null, method: string, route: string, body?: unknown) => {
			const res = await fetch(`${gatewayUrl}/api/v1/${route}`, {
				method,
				headers: session === null ? {} : authHeaders(session),
				body: body === undefined ? undefined : JSON.stringify(body)
			});
			const text = await res.text();
			return { status: res.status, body: (text === "" ? {} : JSON.parse(text)) as Record<string, unknown> & { name: string } };
		};
		const post = (await call(writer, "POST", "memos", { content: "post", visibility: "PROTECTED" })).body;
		const comment = await call(reader, "POST", `${post.name}/comments`, { content: "reply", visibility: "PROTECTED" });
		expect(comment.body).toMatchObject({ parent: post.name, relations: [{ type: "COMMENT" }] });
		const other = (await call(writer, "POST", "memos", { content: "other", relations: [{ relatedMemo: { name: post.name } }] })).body;
		expect((await call(reader, "POST", `${post.name}/reactions`, { reaction: { reactionType: "👍" } })).status).toBe(200);
		const seen = (await call(writer, "GET", post.name)).body;
		expect((seen.relations as unknown[]).length).toBe(2);
		expect(seen.reactions).toMatchObject([{ creator: "users/reader", reactionType: "👍" }]);
		const share = (await call(writer, "POST", `${post.name}/shares`, {})).body;
		const token = share.name.split("/")[3];
		expect((await call(null, "GET", `shares/${token}/memo`)).body).toMatchObject({ name: post.name, relations: [] });
		expect((await call(null, "GET", `memos/-/linkMetadata?url=${encodeURIComponent(`${gatewayUrl}/healthz`)}`)).status).toBe(401);
		expect((await call(writer, "GET", `memos/-/linkMetadata?url=${encodeURIComponent(`${gatewayUrl}/healthz`)}`)).status).toBe(400);

		// The first user, signed up by the transcription test.
		const admin = await signIn(gatewayUrl, "admin");
		expect((await call(admin, "DELETE", "users/writer")).status).toBe(200);
		expect((await call(reader, "GET", post.name)).status).toBe(404);
		expect((await call(reader, "GET", other.name)).status).toBe(404);
		expect((await call(null, "GET", `shares/${token}/memo`)).status).toBe(404);
		const survivor = await call(reader, "GET", comment.body.name);
		expect(survivor.status).toBe(200);
		expect(survivor.body).not.toHaveProperty("parent");
	});

	test("a stopped instance process gives 503 code 14 at once, and 200 again after restart", async () => {
		expect(await cluster.procs.instance?.stop("SIGTERM")).toBe(0);
		const res = await profile();
		expect(res.status).toBe(503);
		expect(await res.json()).toEqual({ code: 14, message: "service unavailable", details: [] });

		const ready = await fetch(`${gatewayUrl}/readyz`);
		expect(ready.status).toBe(503);
		expect(await ready.json()).toEqual({ status: "not_ready", failing: ["instance"] });

		await startService("instance");
		await waitForProfile();
		expect((await profile()).status).toBe(200);
	});

	test("a killed instance process gives 503 code 14 within the request timeout, never a hang", async () => {
		await cluster.procs.instance?.stop("SIGKILL");
		const res = await profile();
		expect(res.status).toBe(503);
		expect(((await res.json()) as { code: number }).code).toBe(14);

		await startService("instance");
		await waitForProfile();
	});

	test("SIGTERM stops every process cleanly with exit code 0", async () => {
		const auth = cluster.procs.auth as Proc;
		expect(await auth.stop("SIGTERM")).toBe(0);
		expect(auth.output()).not.toMatch(/"level":(50|60)/);
	});
});
