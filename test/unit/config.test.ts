import { readFileSync } from "node:fs";
import { ConfigError, ENV_DEFAULTS, loadConfig } from "../../shared/runtime/config.js";

describe("configuration from the environment", () => {
	test("defaults give the embedded mode with every service", () => {
		const config = loadConfig({});
		expect(config.services).toEqual(["gateway", "auth", "memos", "attachments", "spaces", "instance", "ai", "webhooks"]);
		expect(config.port).toBe(5230);
		expect(config.healthPort).toBe(3001);
		expect(config.metricsPort).toBe(3030);
		expect(config.transporter).toBeUndefined();
		expect(config.mongoUrl).toBeUndefined();
		expect(config.s3).toBeUndefined();
		expect(config.dataDir).toMatch(/\/data$/);
	});

	test("CORS_ORIGINS: any origin by default, `none`, or `*` and named origins", () => {
		expect(loadConfig({}).corsOrigins).toEqual({ any: true, named: [] });
		expect(loadConfig({ CORS_ORIGINS: "none" }).corsOrigins).toEqual({ any: false, named: [] });
		expect(loadConfig({ CORS_ORIGINS: " https://app.example.com , http://localhost:3000" }).corsOrigins).toEqual({ any: false, named: ["https://app.example.com", "http://localhost:3000"] });
		expect(loadConfig({ CORS_ORIGINS: "*,https://app.example.com" }).corsOrigins).toEqual({ any: true, named: ["https://app.example.com"] });
	});

	test("TRUSTED_PROXIES: none by default, addresses and CIDR ranges, anything else refused", () => {
		expect(loadConfig({}).trustedProxies).toEqual([]);
		expect(loadConfig({ TRUSTED_PROXIES: " 10.0.0.0/8 , 192.0.2.7,fd00::/8, ::1" }).trustedProxies).toEqual(["10.0.0.0/8", "192.0.2.7/32", "fd00::/8", "::1/128"]);
		for (const bad of ["10.0.0.0/33", "proxy.example.com", "10.0.0"]) expect(() => loadConfig({ TRUSTED_PROXIES: bad })).toThrow(/TRUSTED_PROXIES/);
	});

	test("API_COMPAT: strict by default, or upstream (any case)", () => {
		expect(loadConfig({}).apiCompat).toBe("strict");
		expect(loadConfig({ API_COMPAT: "Upstream" }).apiCompat).toBe("upstream");
	});

	test("SERVICES picks services, trimmed and de-duplicated", () => {
		expect(loadConfig({ SERVICES: " memos , ai,memos" }).services).toEqual(["memos", "ai"]);
	});

	test.each([
		[{ SERVICES: "memos,bogus" }, /^SERVICES: unknown service "bogus"/],
		[{ SERVICES: "," }, /^SERVICES: names no service/],
		[{ PORT: "70000" }, /^PORT: must be a port number/],
		[{ PORT: "-1" }, /^PORT: must be a port number/],
		[{ HEALTH_PORT: "abc" }, /^HEALTH_PORT: must be a port number/],
		[{ METRICS_PORT: "3.5" }, /^METRICS_PORT: must be a port number/],
		[{ TRANSPORTER: "not a url" }, /^TRANSPORTER: is not a valid URL/],
		[{ TRANSPORTER: "redis://localhost" }, /^TRANSPORTER: must use nats:/],
		[{ MONGO_URL: "http://db" }, /^MONGO_URL: must use mongodb:/],
		[{ MONGO_URL: "mongodb://user:secret@[" }, /^MONGO_URL: is not a valid URL/],
		[{ S3_ENDPOINT: "minio", S3_SECRET_KEY: "x" }, /^S3_ACCESS_KEY: is required/],
		[{ S3_ENDPOINT: "minio", S3_ACCESS_KEY: "x", S3_SECRET_KEY: "y", S3_PORT: "99999" }, /^S3_PORT: must be a port number/],
		[{ S3_ENDPOINT: "minio", S3_ACCESS_KEY: "x", S3_SECRET_KEY: "y", S3_BUCKET: "No_Such" }, /^S3_BUCKET: is not a valid bucket name/],
		[{ S3_USE_SSL: "maybe", S3_ENDPOINT: "minio", S3_ACCESS_KEY: "x", S3_SECRET_KEY: "y" }, /^S3_USE_SSL: must be true or false/],
		[{ LOG_LEVEL: "loud" }, /^LOG_LEVEL: must be one of/],
		[{ REQUEST_TIMEOUT_MS: "0" }, /^REQUEST_TIMEOUT_MS: must be a positive integer/],
		[{ INSTANCE_URL: "ftp://x" }, /^INSTANCE_URL: must use http: or https:/],
		[{ NODE_ID: "a b" }, /^NODE_ID: may hold/],
		[{ API_COMPAT: "loose" }, /^API_COMPAT: must be one of strict, upstream/],
		[{ CORS_ORIGINS: "https://app.example.com/" }, /^CORS_ORIGINS: "https:\/\/app.example.com\/" is not an http\(s\) origin/],
		[{ CORS_ORIGINS: "*,app.example.com" }, /^CORS_ORIGINS: "app.example.com" is not an http\(s\) origin/],
		[{ CORS_ORIGINS: "ftp://files.example" }, /^CORS_ORIGINS: "ftp:\/\/files.example" is not an http\(s\) origin/]
	])("%j is refused with a message naming the variable", (env, message) => {
		expect(() => loadConfig(env)).toThrow(ConfigError);
		expect(() => loadConfig(env)).toThrow(message);
	});

	test("a URL's password never appears in a message", () => {
		expect(() => loadConfig({ MONGO_URL: "mongodb://user:hunter2@[" })).toThrow(/\*\*\*@/);
		expect(() => loadConfig({ MONGO_URL: "mongodb://user:hunter2@[" })).not.toThrow(/hunter2/);
	});

	test("cluster settings are read", () => {
		const config = loadConfig({
			TRANSPORTER: "nats://nats:4222",
			MONGO_URL: "mongodb://mongo:27017/memos",
			S3_ENDPOINT: "http://minio:9000",
			S3_ACCESS_KEY: "k",
			S3_SECRET_KEY: "s"
		});
		expect(config.transporter).toBe("nats://nats:4222");
		expect(config.mongoUrl).toBe("mongodb://mongo:27017/memos");
		expect(config.s3).toEqual({ endPoint: "minio", port: 9000, useSSL: false, accessKey: "k", secretKey: "s", bucket: "memos", region: "us-east-1" });
		expect(loadConfig({ S3_ENDPOINT: "s3.example.com", S3_ACCESS_KEY: "k", S3_SECRET_KEY: "s" }).s3).toMatchObject({ port: 443, useSSL: true });
	});

	test("every variable is documented in the README with its default", () => {
		const readme = readFileSync("README.md", "utf8");
		for (const [name, def] of Object.entries(ENV_DEFAULTS)) {
			const row = readme.split("\n").find(line => line.startsWith(`| \`${name}\``));
			expect(row).toBeDefined();
			if (def !== "") expect(row).toContain(`\`${def}\``);
		}
	});
});
