import { createServer, type Server, type Socket } from "node:net";
import tls from "node:tls";
import { generate } from "selfsigned";
import type { AddressInfo } from "node:net";
import type { Service } from "moleculer";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import type { EmbeddedApp } from "../support/embedded-app.js";
import { authHeaders, signIn, signUp, startPopulatedApp, type Population, type Session } from "../support/users.js";

/** POST /api/v1/instance/settings/notification:testEmail (contract 11.5) against a real SMTP server on loopback. */

const PASSWORD = "smtp-pass-7f3a9c";

interface Delivered {
	mailFrom: string;
	rcptTo: string[];
	data: string;
	/** Whether the message came over TLS (implicit, or after STARTTLS). */
	secure: boolean;
}

const delivered: Delivered[] = [];
let smtp: SMTPServer;
let smtpPort: number;
let app: EmbeddedApp & Population;
let ops: Session;

function listen(server: { listen(port: number, host: string, cb: () => void): unknown }, address: () => AddressInfo): Promise<number> {
	return new Promise(resolve => server.listen(0, "127.0.0.1", () => resolve(address().port)));
}

/** A real SMTP server on loopback that accepts `memos` / PASSWORD and records each message in `delivered`. */
async function startSmtp(options: SMTPServerOptions): Promise<{ server: SMTPServer; port: number }> {
	const server = new SMTPServer({
		logger: false,
		...options,
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
					data: Buffer.concat(chunks).toString("utf8"),
					secure: session.secure
				});
				cb();
			});
		}
	});
	return { server, port: await listen(server.server, () => server.server.address() as AddressInfo) };
}

function stopSmtp(server: SMTPServer | undefined): Promise<void> {
	return new Promise(resolve => (server ? server.close(() => resolve()) : resolve()));
}

beforeAll(async () => {
	({ server: smtp, port: smtpPort } = await startSmtp({ disabledCommands: ["STARTTLS"], allowInsecureAuth: true }));
	app = await startPopulatedApp(1);
	await signUp(app.baseUrl, "ops", undefined, { email: "ops@example.com", role: "ADMIN", accessToken: app.admin.accessToken });
	ops = await signIn(app.baseUrl, "ops");
});

afterAll(async () => {
	await app?.stop();
	await stopSmtp(smtp);
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
		const res = await testEmail({ email: email({ useTls: true }), recipientEmail: "ops@example.com" });
		expectInternal(res);
		expect(res.body.message).toBe("sending the test e-mail failed (ETLS)");
	});

	test("implicit TLS by useSsl against a plain server", async () => {
		const res = await testEmail({ email: email({ useSsl: true }), recipientEmail: "ops@example.com" });
		expectInternal(res);
		expect(res.body.message).toBe("sending the test e-mail failed (ESOCKET)");
	});
});

describe("over TLS, with a certificate made here", () => {
	/** Trusted by the app (added to this process's default CAs) for 127.0.0.1. */
	let trusted: { key: string; cert: string };
	/** Self-signed and trusted by nobody. */
	let untrusted: { key: string; cert: string };
	let defaultCas: string[];
	const servers: SMTPServer[] = [];
	const ports = { starttls: 0, implicit: 0, untrustedStarttls: 0, untrustedImplicit: 0 };

	async function certificate(): Promise<{ key: string; cert: string }> {
		const pems = await generate([{ name: "commonName", value: "127.0.0.1" }], {
			keyType: "ec",
			algorithm: "sha256",
			extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }]
		});
		return { key: pems.private, cert: pems.cert };
	}

	async function serve(options: SMTPServerOptions): Promise<number> {
		const { server, port } = await startSmtp(options);
		// A client that breaks off the handshake is an error on the server's side, expected here.
		server.on("error", () => undefined);
		servers.push(server);
		return port;
	}

	beforeAll(async () => {
		[trusted, untrusted] = [await certificate(), await certificate()];
		defaultCas = tls.getCACertificates("default");
		tls.setDefaultCACertificates([...defaultCas, trusted.cert]);
		// AUTH allowed before STARTTLS, so that a client configured for plain SMTP can sign in.
		ports.starttls = await serve({ ...trusted, allowInsecureAuth: true });
		ports.implicit = await serve({ ...trusted, secure: true });
		ports.untrustedStarttls = await serve({ ...untrusted });
		ports.untrustedImplicit = await serve({ ...untrusted, secure: true });
	});

	afterAll(async () => {
		if (defaultCas) tls.setDefaultCACertificates(defaultCas);
		await Promise.all(servers.map(stopSmtp));
	});

	test("useTls: STARTTLS, and the message arrives over TLS", async () => {
		expect((await testEmail({ email: email({ smtpPort: ports.starttls, useTls: true }), recipientEmail: "ops@example.com" })).status).toBe(200);
		expect(delivered.map(d => [d.rcptTo, d.secure])).toEqual([[["ops@example.com"], true]]);
	});

	test("useSsl: implicit TLS, and the message arrives over TLS", async () => {
		expect((await testEmail({ email: email({ smtpPort: ports.implicit, useSsl: true }), recipientEmail: "ops@example.com" })).status).toBe(200);
		expect(delivered.map(d => [d.rcptTo, d.secure])).toEqual([[["ops@example.com"], true]]);
	});

	test("neither flag: the connection stays plain even where STARTTLS is offered", async () => {
		expect((await testEmail({ email: email({ smtpPort: ports.starttls }), recipientEmail: "ops@example.com" })).status).toBe(200);
		expect(delivered.map(d => d.secure)).toEqual([false]);
	});

	test.each([
		["STARTTLS", "untrustedStarttls", { useTls: true }],
		["implicit TLS", "untrustedImplicit", { useSsl: true }]
	] as const)("%s to a server whose certificate is not trusted fails with the TLS error", async (_how, port, flags) => {
		const res = await testEmail({ email: email({ smtpPort: ports[port], ...flags }), recipientEmail: "ops@example.com" });
		expectInternal(res);
		// The socket's TLS error (the certificate refused), not the time limit's ETIMEDOUT.
		expect(res.body.message).toBe("sending the test e-mail failed (ESOCKET)");
	});
});
