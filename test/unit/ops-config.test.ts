import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { natsOptions } from "../../shared/runtime/broker-options.js";
import { ConfigError, loadConfig } from "../../shared/runtime/config.js";

/** NAMESPACE, NATS credentials and TLS files, tracing and log format from the environment. */
const dir = mkdtempSync(path.join(os.tmpdir(), "memos-tls-"));
const file = (name: string) => {
	const p = path.join(dir, name);
	writeFileSync(p, "-----BEGIN CERTIFICATE-----\n");
	return p;
};
const NATS = { TRANSPORTER: "nats://nats:4222" };

test("defaults: namespace memos, no credentials, no tracing, JSON logs unless stdout is a terminal", () => {
	const config = loadConfig({}, false);
	expect(config).toMatchObject({ namespace: "memos", bus: {}, tracingZipkinUrl: undefined, logFormat: "json", maxLargeBodies: 4 });
	expect(loadConfig({}, true).logFormat).toBe("pretty");
	expect(loadConfig({ LOG_FORMAT: "json" }, true).logFormat).toBe("json");
	expect(loadConfig({ LOG_FORMAT: "pretty" }, false).logFormat).toBe("pretty");
});

test.each([
	[{ NAMESPACE: "a.b" }, /^NAMESPACE: may hold/],
	[{ NAMESPACE: "x".repeat(65) }, /^NAMESPACE: may hold/],
	[{ ...NATS, NATS_USER: "memos" }, /^NATS_PASSWORD: is required when NATS_USER is set/],
	[{ ...NATS, NATS_PASSWORD: "s3cret-pass" }, /^NATS_USER: is required when NATS_PASSWORD is set/],
	[{ ...NATS, NATS_USER: "u", NATS_PASSWORD: "p", NATS_TOKEN: "t" }, /^NATS_TOKEN: cannot be combined/],
	[{ ...NATS, NATS_TLS_CA_FILE: "/no/such/ca.pem" }, /^NATS_TLS_CA_FILE: cannot read "\/no\/such\/ca.pem"/],
	[{ ...NATS, NATS_TLS_CERT_FILE: file("cert.pem") }, /^NATS_TLS_KEY_FILE: is required/],
	[{ NATS_TOKEN: "t" }, /^TRANSPORTER: is required when NATS credentials/],
	[{ TRACING_ZIPKIN_URL: "udp://zipkin" }, /^TRACING_ZIPKIN_URL: must use http: or https:/],
	[{ LOG_FORMAT: "xml" }, /^LOG_FORMAT: must be auto, pretty or json/],
	[{ MAX_LARGE_BODIES: "0" }, /^MAX_LARGE_BODIES: must be a positive integer/]
])("%j is refused with a one-line message naming the variable", (env, message) => {
	expect(() => loadConfig(env)).toThrow(ConfigError);
	expect(() => loadConfig(env)).toThrow(message);
});

test("a refused NATS password never appears in a message", () => {
	let message = "";
	try {
		loadConfig({ ...NATS, NATS_PASSWORD: "hunter2-secret" });
	} catch (err) {
		message = (err as Error).message;
	}
	expect(message).toMatch(/^NATS_USER/);
	expect(message).not.toContain("hunter2");
});

test("the NATS client gets the server, the credentials and the TLS files", () => {
	const ca = file("ca.pem");
	const cert = file("client.pem");
	const key = file("client-key.pem");
	const config = loadConfig({ TRANSPORTER: "tls://nats.example:4222", NATS_USER: "memos", NATS_PASSWORD: "pw", NATS_TLS_CA_FILE: ca, NATS_TLS_CERT_FILE: cert, NATS_TLS_KEY_FILE: key });
	expect(natsOptions(config)).toEqual({ servers: ["tls://nats.example:4222"], user: "memos", pass: "pw", tls: { caFile: ca, certFile: cert, keyFile: key } });
	expect(natsOptions(loadConfig({ TRANSPORTER: "tls://nats.example:4222", NATS_TOKEN: "tok" }))).toEqual({ servers: ["tls://nats.example:4222"], token: "tok", tls: {} });
	// Credentials written into the URL still work, and are not left in the server address.
	expect(natsOptions(loadConfig({ TRANSPORTER: "nats://u%40x:p%2Fw@nats:4222" }))).toEqual({ servers: ["nats://nats:4222"], user: "u@x", pass: "p/w" });
});
