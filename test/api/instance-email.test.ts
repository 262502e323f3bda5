import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import type { Service } from "moleculer";
import { SMTPServer } from "smtp-server";
import type { EmbeddedApp } from "../support/embedded-app.js";
import { authHeaders, signIn, signUp, startPopulatedApp, type Population, type Session } from "../support/users.js";

/** POST /api/v1/instance/settings/notification:testEmail (contract 11.5) against a real SMTP server on loopback. */

const PASSWORD = "smtp-pass-7f3a9c";

interface Delivered {
	mailFrom: string;
	rcptTo: string[];
	data: string;
}

const delivered: Delivered[] = [];
let smtp: SMTPServer;
let smtpPort: number;
let app: EmbeddedApp & Population;
let ops: Session;

function listen(server: { listen(port: number, host: string, cb: () => void): unknown }, address: () => AddressInfo): Promise<number> {
	return new Promise(resolve => server.listen(0, "127.0.0.1", () => resolve(address().port)));
}

beforeAll(async () => {
	smtp = new SMTPServer({
		disabledCommands: ["STARTTLS"],
		allowInsecureAuth: true,
		logger: false,
		onAuth(auth, _session, cb) {
			if (auth.username === "memos" && auth.password === PASSWORD) cb(null, { user: "memos" });
			else cb(new Error("Invalid username or password"));
		},
		onData(stream, session, cb) {
			const chunks: Buffer[] = [];
			stream.on("data", (c: Buffer) => chunks.push(c));
			stream.on("end", () => {
				delivered.push({
					mailFrom: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
					rcptTo: session.envelope.rcptTo.map(r => r.address),
					data: Buffer.concat(chunks).toString("utf8")
				});
				cb();
			});
		}
	});
	smtpPort = await listen(smtp.server, () => smtp.server.address() as AddressInfo);
	app = await startPopulatedApp(1);
	await signUp(app.baseUrl, "ops", undefined, { email: "ops@example.com", role: "ADMIN", accessToken: app.admin.accessToken });
	ops = await signIn(app.baseUrl, "ops");
});

afterAll(async () => {
	await app?.stop();
	await new Promise(resolve => smtp?.close(() => resolve(undefined)));
});

beforeEach(() => {
	delivered.length = 0;
});

const email = (extra: Record<string, unknown> = {}) => ({
	enabled: true,
	smtpHost: "127.0.0.1",
	smtpPort,
	smtpUsername: "memos",
	smtpPassword: PASSWORD,
	fromEmail: "memos@example.com",
	fromName: "Memos Test",
	replyTo: "",
	useTls: false,
	useSsl: false,
	...extra
});

async function testEmail(body: unknown, session: Session | null = app.admin) {
	const res = await fetch(`${app.baseUrl}/api/v1/instance/settings/notification:testEmail`, {
		method: "POST",
		headers: session ? authHeaders(session) : { "Content-Type": "application/json" },
		body: JSON.stringify(body)
	});
	const text = await res.text();
	return { status: res.status, text, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

async function storeNotification(value: unknown): Promise<void> {
	const res = await fetch(`${app.baseUrl}/api/v1/instance/settings/NOTIFICATION`, {
		method: "PATCH",
		headers: authHeaders(app.admin),
		body: JSON.stringify({ notificationSetting: { email: value } })
	});
	expect(res.status).toBe(200);
}

function instanceSettings(): { testEmailTimeoutMs: number } {
	return (app.node.broker.getLocalService("instance") as unknown as Service<{ testEmailTimeoutMs: number }>).settings;
}

async function withTimeout<T>(ms: number, run: () => Promise<T>): Promise<T> {
	const saved = instanceSettings().testEmailTimeoutMs;
	instanceSettings().testEmailTimeoutMs = ms;
	try {
		return await run();
	} finally {
		instanceSettings().testEmailTimeoutMs = saved;
	}
}

function expectInternal(res: { status: number; text: string; body: Record<string, unknown> }): void {
	expect(res.status).toBe(500);
	expect(res.body.code).toBe(13);
	expect(res.text).not.toContain(PASSWORD);
	expect(delivered).toHaveLength(0);
}

test("admins only", async () => {
	expect((await testEmail({ email: email(), recipientEmail: "a@example.com" }, null)).status).toBe(401);
	expect((await testEmail({ email: email(), recipientEmail: "a@example.com" }, app.users[0]!)).status).toBe(403);
	expect(delivered).toHaveLength(0);
});

test("sends one message with fromEmail as envelope sender and From address; nothing is stored", async () => {
	const res = await testEmail({ email: email(), recipientEmail: "ops@example.com" });
	expect(res.status).toBe(200);
	expect(res.text).toBe("");
	expect(delivered).toHaveLength(1);
	const [message] = delivered;
	expect(message!.mailFrom).toBe("memos@example.com");
	expect(message!.rcptTo).toEqual(["ops@example.com"]);
	expect(message!.data).toMatch(/^From: "?Memos Test"? <memos@example\.com>$/m);
	expect(message!.data).toMatch(/^To: ops@example\.com$/m);

	const stored = await fetch(`${app.baseUrl}/api/v1/instance/settings/NOTIFICATION`, { headers: authHeaders(app.admin) });
	expect(await stored.json()).toEqual({ name: "instance/settings/NOTIFICATION", notificationSetting: {} });
});

test("the recipient defaults to the caller's e-mail; a caller without one must name a recipient", async () => {
	expect((await testEmail({ email: email() }, ops)).status).toBe(200);
	expect(delivered.map(d => d.rcptTo)).toEqual([["ops@example.com"]]);
	const none = await testEmail({ email: email() });
	expect(none.status).toBe(400);
	expect(none.body.code).toBe(3);
});

test.each([
	["no smtpHost", { smtpHost: "" }],
	["port 0", { smtpPort: 0 }],
	["port 65536", { smtpPort: 65536 }],
	["no fromEmail", { fromEmail: "" }]
])("%s is INVALID_ARGUMENT", async (_name, extra) => {
	const res = await testEmail({ email: email(extra), recipientEmail: "ops@example.com" });
	expect(res.status).toBe(400);
	expect(res.body.code).toBe(3);
	expect(delivered).toHaveLength(0);
});

describe("with stored settings", () => {
	beforeAll(async () => {
		await storeNotification(email());
	});

	test("email omitted: the stored setting, password included, is used", async () => {
		expect((await testEmail({ recipientEmail: "ops@example.com" })).status).toBe(200);
		expect(delivered).toHaveLength(1);
	});

	test("an empty password uses the stored one while host, port, username and TLS flags are unchanged", async () => {
		expect((await testEmail({ email: email({ smtpPassword: "", fromName: "Other" }), recipientEmail: "ops@example.com" })).status).toBe(200);
		expect(delivered).toHaveLength(1);
		const moved = await testEmail({ email: email({ smtpPassword: "", smtpUsername: "someone" }), recipientEmail: "ops@example.com" });
		expect(moved.status).toBe(400);
		expect(moved.body.code).toBe(3);
	});
});

describe("failures are INTERNAL and leak nothing", () => {
	test("authentication rejected", async () => {
		expectInternal(await testEmail({ email: email({ smtpPassword: "wrong-password" }), recipientEmail: "ops@example.com" }));
	});

	test("connection refused", async () => {
		const probe = createServer();
		const closedPort = await listen(probe, () => probe.address() as AddressInfo);
		await new Promise(resolve => probe.close(resolve));
		expectInternal(await testEmail({ email: email({ smtpPort: closedPort }), recipientEmail: "ops@example.com" }));
	});

	test("a server that never answers: the time limit ends the attempt", async () => {
		const sockets: Socket[] = [];
		const silent: Server = createServer(socket => sockets.push(socket));
		const silentPort = await listen(silent, () => silent.address() as AddressInfo);
		try {
			const res = await withTimeout(300, () => testEmail({ email: email({ smtpPort: silentPort }), recipientEmail: "ops@example.com" }));
			expectInternal(res);
		} finally {
			for (const socket of sockets) socket.destroy();
			await new Promise(resolve => silent.close(resolve));
		}
	});

	test("STARTTLS required by useTls but not offered", async () => {
		expectInternal(await withTimeout(2_000, () => testEmail({ email: email({ useTls: true }), recipientEmail: "ops@example.com" })));
	});

	test("implicit TLS by useSsl against a plain server", async () => {
		expectInternal(await withTimeout(2_000, () => testEmail({ email: email({ useSsl: true }), recipientEmail: "ops@example.com" })));
	});
});
