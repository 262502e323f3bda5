import { accessSync, constants } from "node:fs";
import os from "node:os";
import path from "node:path";
import ipaddr from "ipaddr.js";

/** Every service a process can run; `SERVICES` picks from these. */
export const SERVICE_NAMES = ["gateway", "auth", "memos", "attachments", "spaces", "instance", "ai", "webhooks"] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/**
 * The services the API cannot serve without: a gateway is ready only when each has an
 * available node. The others are optional: without ai, transcription answers UNAVAILABLE and
 * everything else keeps serving; without webhooks (the delivery worker), deliveries wait in the
 * store until a worker runs.
 */
export const OPTIONAL_SERVICES: readonly ServiceName[] = ["ai", "webhooks"];
export const REQUIRED_SERVICES: readonly ServiceName[] = SERVICE_NAMES.filter(name => !OPTIONAL_SERVICES.includes(name));

export interface S3Config {
	endPoint: string;
	port: number;
	useSSL: boolean;
	accessKey: string;
	secretKey: string;
	bucket: string;
	region: string;
}

export interface Config {
	services: ServiceName[];
	nodeId: string;
	host: string;
	port: number;
	healthPort: number;
	metricsPort: number;
	metricsEnabled: boolean;
	dataDir: string;
	transporter: string | undefined;
	mongoUrl: string | undefined;
	s3: S3Config | undefined;
	logLevel: LogLevel;
	requestTimeoutMs: number;
	shutdownTimeoutMs: number;
	instanceUrl: string;
	commit: string;
	/** Access-token signing secret; "" means the auth service generates one and keeps it in its store. */
	jwtSecret: string;
	/** Link metadata may fetch loopback and private addresses (tests only; contract 7.12). */
	linkMetadataAllowPrivateNetworks: boolean;
	/** Moleculer namespace: installations sharing one NATS see only their own namespace. */
	namespace: string;
	bus: BusSecurity;
	/** Zipkin v2 endpoint base (`…/api/v2/spans` is appended); undefined: spans are not exported. */
	tracingZipkinUrl: string | undefined;
	logFormat: "pretty" | "json";
	/** Gateway: request bodies above LARGE_BODY_BYTES read at once; more answer 429. */
	maxLargeBodies: number;
	/** Gateway: live streams (`GET /api/v1/sse`) open at once; more answer 429 (contract 17). */
	sseMaxStreams: number;
	/** Gateway: how often an idle live stream gets a `: heartbeat` comment. */
	sseHeartbeatMs: number;
	/** Gateway: origins browsers may call the API from (contract 19, CORS). */
	corsOrigins: CorsOrigins;
	/** Gateway: proxies (CIDR ranges) whose `X-Forwarded-For` names the client, for per-client limits. */
	trustedProxies: readonly string[];
	/** Gateway: `upstream` answers as upstream memos where strictness breaks its clients (contract 18); the profile reports it. */
	apiCompat: ApiCompat;
	/** Memos nodes: bytes of ListMemos responses kept for reuse while the store is unchanged; 0: none kept. */
	memoListCacheBytes: number;
}

export const API_COMPAT_MODES = ["strict", "upstream"] as const;
export type ApiCompat = (typeof API_COMPAT_MODES)[number];

/** `CORS_ORIGINS`: `*` lets any origin read responses without credentials; named origins may send cookies too. */
export interface CorsOrigins {
	any: boolean;
	named: readonly string[];
}

/** NATS credentials and TLS files; secrets stay out of messages and logs. */
export interface BusSecurity {
	user?: string;
	password?: string;
	token?: string;
	tls?: { caFile?: string; certFile?: string; keyFile?: string };
}

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A configuration value that stops start-up; the message names the variable. */
export class ConfigError extends Error {
	constructor(variable: string, problem: string) {
		super(`${variable}: ${problem}`);
		this.name = "ConfigError";
	}
}

type Env = Record<string, string | undefined>;

/**
 * The documented variables with their defaults. README's configuration table lists the
 * same; `test/unit/config.test.ts` checks that the two agree.
 */
export const ENV_DEFAULTS = {
	SERVICES: SERVICE_NAMES.join(","),
	NODE_ID: "<hostname>-<pid>",
	HOST: "0.0.0.0",
	PORT: "5230",
	HEALTH_PORT: "3001",
	METRICS_PORT: "3030",
	METRICS_ENABLED: "true",
	DATA_DIR: "./data",
	TRANSPORTER: "",
	MONGO_URL: "",
	S3_ENDPOINT: "",
	S3_PORT: "",
	S3_USE_SSL: "true",
	S3_ACCESS_KEY: "",
	S3_SECRET_KEY: "",
	S3_BUCKET: "memos",
	S3_REGION: "us-east-1",
	LOG_LEVEL: "info",
	REQUEST_TIMEOUT_MS: "10000",
	SHUTDOWN_TIMEOUT_MS: "10000",
	INSTANCE_URL: "",
	COMMIT: "",
	JWT_SECRET: "",
	LINK_METADATA_ALLOW_PRIVATE_NETWORKS: "false",
	NAMESPACE: "memos",
	NATS_USER: "",
	NATS_PASSWORD: "",
	NATS_TOKEN: "",
	NATS_TLS_CA_FILE: "",
	NATS_TLS_CERT_FILE: "",
	NATS_TLS_KEY_FILE: "",
	TRACING_ZIPKIN_URL: "",
	LOG_FORMAT: "auto",
	MAX_LARGE_BODIES: "4",
	SSE_MAX_STREAMS: "10000",
	SSE_HEARTBEAT_MS: "30000",
	CORS_ORIGINS: "*",
	TRUSTED_PROXIES: "",
	API_COMPAT: "strict",
	MEMO_LIST_CACHE_MB: "16"
} as const;

function value(env: Env, name: keyof typeof ENV_DEFAULTS): string {
	const raw = env[name]?.trim();
	return raw === undefined || raw === "" ? ENV_DEFAULTS[name] : raw;
}

function port(env: Env, name: keyof typeof ENV_DEFAULTS): number {
	const raw = value(env, name);
	if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) throw new ConfigError(name, `must be a port number 0-65535 (0 picks a free port), got ${JSON.stringify(raw)}`);
	return Number(raw);
}

function bool(env: Env, name: keyof typeof ENV_DEFAULTS): boolean {
	const raw = value(env, name).toLowerCase();
	if (raw === "true" || raw === "1") return true;
	if (raw === "false" || raw === "0") return false;
	throw new ConfigError(name, `must be true or false, got ${JSON.stringify(raw)}`);
}

function positiveInt(env: Env, name: keyof typeof ENV_DEFAULTS): number {
	const raw = value(env, name);
	if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) throw new ConfigError(name, `must be a positive integer, got ${JSON.stringify(raw)}`);
	return Number(raw);
}

function nonNegativeInt(env: Env, name: keyof typeof ENV_DEFAULTS): number {
	const raw = value(env, name);
	if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new ConfigError(name, `must be a whole number, 0 or more, got ${JSON.stringify(raw)}`);
	return Number(raw);
}

function url(env: Env, name: keyof typeof ENV_DEFAULTS, protocols: string[]): string | undefined {
	const raw = value(env, name);
	if (raw === "") return undefined;
	let parsed: URL;
	try {
		parsed = new URL(raw);
	} catch {
		throw new ConfigError(name, `is not a valid URL: ${JSON.stringify(redact(raw))}`);
	}
	if (!protocols.includes(parsed.protocol)) throw new ConfigError(name, `must use ${protocols.join(" or ")}, got ${JSON.stringify(parsed.protocol)}`);
	if (parsed.hostname === "") throw new ConfigError(name, "has no host");
	return raw;
}

/** `none`, or a comma list of `*` and origins (`https://app.example.com`, no path), each exactly as browsers send it. */
function corsOrigins(env: Env): CorsOrigins {
	const raw = value(env, "CORS_ORIGINS");
	if (raw === "none") return { any: false, named: [] };
	const entries = raw.split(",").map(entry => entry.trim()).filter(Boolean);
	const named: string[] = [];
	for (const entry of entries) {
		if (entry === "*") continue;
		let origin: string | undefined;
		try {
			origin = new URL(entry).origin;
		} catch {
			origin = undefined;
		}
		if (origin !== entry || !/^https?:$/.test(new URL(entry).protocol)) throw new ConfigError("CORS_ORIGINS", `${JSON.stringify(entry)} is not an http(s) origin such as https://app.example.com`);
		named.push(entry);
	}
	return { any: entries.includes("*"), named };
}

/** Dotted-quad IPv4 or IPv6, not the legacy forms (`10.0.0`) that would read as another address than meant. */
function isPlainAddress(address: string): boolean {
	return ipaddr.IPv4.isValidFourPartDecimal(address) || (address.includes(":") && ipaddr.IPv6.isValid(address));
}

/** A comma list of IP addresses and CIDR ranges, each made a range (`10.0.0.1` → `10.0.0.1/32`). */
function trustedProxies(env: Env): string[] {
	return value(env, "TRUSTED_PROXIES")
		.split(",")
		.map(entry => entry.trim())
		.filter(entry => entry !== "")
		.map(entry => {
			const [address = "", bits] = entry.split("/");
			if (isPlainAddress(address) && bits !== undefined && ipaddr.isValidCIDR(entry)) return entry;
			if (isPlainAddress(entry)) return `${entry}/${ipaddr.parse(entry).kind() === "ipv4" ? 32 : 128}`;
			throw new ConfigError("TRUSTED_PROXIES", `${JSON.stringify(entry)} is not an IP address or a CIDR range such as 10.0.0.0/8`);
		});
}

/** Credentials in a URL never reach a message or a log line. */
export function redact(raw: string): string {
	return raw.replace(/\/\/[^/@]*@/, "//***@");
}

function services(env: Env): ServiceName[] {
	const raw = value(env, "SERVICES");
	const names = raw === "*" || raw.toLowerCase() === "all" ? [...SERVICE_NAMES] : raw.split(",").map(s => s.trim()).filter(Boolean);
	if (names.length === 0) throw new ConfigError("SERVICES", "names no service");
	for (const name of names) {
		if (!(SERVICE_NAMES as readonly string[]).includes(name)) throw new ConfigError("SERVICES", `unknown service ${JSON.stringify(name)} (known: ${SERVICE_NAMES.join(", ")})`);
	}
	return [...new Set(names)] as ServiceName[];
}

function s3(env: Env): S3Config | undefined {
	const endpoint = value(env, "S3_ENDPOINT");
	if (endpoint === "") return undefined;
	// MinIO's client takes a bare host name; a URL is accepted too and its parts used.
	let endPoint = endpoint;
	let useSSL = bool(env, "S3_USE_SSL");
	let portFromUrl: number | undefined;
	if (/^[a-z]+:\/\//i.test(endpoint)) {
		const parsed = new URL(url(env, "S3_ENDPOINT", ["http:", "https:"]) as string);
		endPoint = parsed.hostname;
		useSSL = parsed.protocol === "https:";
		portFromUrl = parsed.port === "" ? undefined : Number(parsed.port);
	} else if (!/^[A-Za-z0-9.-]+$/.test(endpoint) && !/^\[[0-9a-fA-F:]+\]$/.test(endpoint)) {
		throw new ConfigError("S3_ENDPOINT", `must be a host name or an http(s) URL, got ${JSON.stringify(endpoint)}`);
	}
	const explicitPort = value(env, "S3_PORT") === "" ? undefined : port(env, "S3_PORT");
	const accessKey = value(env, "S3_ACCESS_KEY");
	const secretKey = value(env, "S3_SECRET_KEY");
	if (accessKey === "") throw new ConfigError("S3_ACCESS_KEY", "is required when S3_ENDPOINT is set");
	if (secretKey === "") throw new ConfigError("S3_SECRET_KEY", "is required when S3_ENDPOINT is set");
	const bucket = value(env, "S3_BUCKET");
	if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new ConfigError("S3_BUCKET", `is not a valid bucket name: ${JSON.stringify(bucket)}`);
	return { endPoint, port: explicitPort ?? portFromUrl ?? (useSSL ? 443 : 80), useSSL, accessKey, secretKey, bucket, region: value(env, "S3_REGION") };
}

/** A short secret could be brute-forced from one token; 32 bytes is the HS256 key size. */
function jwtSecret(env: Env): string {
	const raw = value(env, "JWT_SECRET");
	if (raw !== "" && Buffer.byteLength(raw) < 32) throw new ConfigError("JWT_SECRET", "must be at least 32 bytes long");
	return raw;
}

function namespace(env: Env): string {
	const raw = value(env, "NAMESPACE");
	// It becomes part of every NATS subject (MOL-<namespace>.…), so only subject-safe characters.
	if (!/^[A-Za-z0-9_-]{1,64}$/.test(raw)) throw new ConfigError("NAMESPACE", `may hold 1-64 letters, digits, '_' and '-', got ${JSON.stringify(raw)}`);
	return raw;
}

function readableFile(env: Env, name: keyof typeof ENV_DEFAULTS): string | undefined {
	const file = value(env, name);
	if (file === "") return undefined;
	try {
		accessSync(file, constants.R_OK);
	} catch {
		throw new ConfigError(name, `cannot read ${JSON.stringify(file)}`);
	}
	return file;
}

function bus(env: Env, transporter: string | undefined): BusSecurity {
	const user = value(env, "NATS_USER");
	const password = value(env, "NATS_PASSWORD");
	const token = value(env, "NATS_TOKEN");
	if (user !== "" && password === "") throw new ConfigError("NATS_PASSWORD", "is required when NATS_USER is set");
	if (password !== "" && user === "") throw new ConfigError("NATS_USER", "is required when NATS_PASSWORD is set");
	if (token !== "" && user !== "") throw new ConfigError("NATS_TOKEN", "cannot be combined with NATS_USER (pick one)");
	const tls = { caFile: readableFile(env, "NATS_TLS_CA_FILE"), certFile: readableFile(env, "NATS_TLS_CERT_FILE"), keyFile: readableFile(env, "NATS_TLS_KEY_FILE") };
	if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) throw new ConfigError(tls.certFile ? "NATS_TLS_KEY_FILE" : "NATS_TLS_CERT_FILE", "is required with the other client certificate file");
	const security: BusSecurity = {};
	if (user !== "") Object.assign(security, { user, password });
	if (token !== "") security.token = token;
	const anyTls = Object.values(tls).some(f => f !== undefined);
	if (anyTls || transporter?.startsWith("tls:")) security.tls = Object.fromEntries(Object.entries(tls).filter(([, f]) => f !== undefined));
	if (transporter === undefined && (user !== "" || token !== "" || anyTls)) throw new ConfigError("TRANSPORTER", "is required when NATS credentials or TLS files are set");
	return security;
}

function logFormat(env: Env, isTerminal: boolean): "pretty" | "json" {
	const raw = value(env, "LOG_FORMAT").toLowerCase();
	if (raw === "auto") return isTerminal ? "pretty" : "json";
	if (raw === "pretty" || raw === "json") return raw;
	throw new ConfigError("LOG_FORMAT", `must be auto, pretty or json, got ${JSON.stringify(raw)}`);
}

/** Reads and checks the environment; throws ConfigError on the first bad value. */
function apiCompat(env: Env): ApiCompat {
	const mode = value(env, "API_COMPAT").toLowerCase();
	if (!(API_COMPAT_MODES as readonly string[]).includes(mode)) throw new ConfigError("API_COMPAT", `must be one of ${API_COMPAT_MODES.join(", ")}, got ${JSON.stringify(mode)}`);
	return mode as ApiCompat;
}

export function loadConfig(env: Env = process.env, isTerminal = process.stdout.isTTY === true): Config {
	const logLevel = value(env, "LOG_LEVEL").toLowerCase();
	if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new ConfigError("LOG_LEVEL", `must be one of ${LOG_LEVELS.join(", ")}, got ${JSON.stringify(logLevel)}`);
	const nodeId = env.NODE_ID?.trim() || `${os.hostname()}-${process.pid}`;
	if (!/^[A-Za-z0-9._-]{1,128}$/.test(nodeId)) throw new ConfigError("NODE_ID", `may hold letters, digits, '.', '_' and '-' only, got ${JSON.stringify(nodeId)}`);
	const transporter = url(env, "TRANSPORTER", ["nats:", "tls:"]);
	return {
		services: services(env),
		nodeId,
		host: value(env, "HOST"),
		port: port(env, "PORT"),
		healthPort: port(env, "HEALTH_PORT"),
		metricsPort: port(env, "METRICS_PORT"),
		metricsEnabled: bool(env, "METRICS_ENABLED"),
		dataDir: path.resolve(value(env, "DATA_DIR")),
		transporter,
		mongoUrl: url(env, "MONGO_URL", ["mongodb:", "mongodb+srv:"]),
		s3: s3(env),
		logLevel: logLevel as LogLevel,
		requestTimeoutMs: positiveInt(env, "REQUEST_TIMEOUT_MS"),
		shutdownTimeoutMs: positiveInt(env, "SHUTDOWN_TIMEOUT_MS"),
		instanceUrl: url(env, "INSTANCE_URL", ["http:", "https:"]) ?? "",
		commit: value(env, "COMMIT"),
		jwtSecret: jwtSecret(env),
		linkMetadataAllowPrivateNetworks: bool(env, "LINK_METADATA_ALLOW_PRIVATE_NETWORKS"),
		namespace: namespace(env),
		bus: bus(env, transporter),
		tracingZipkinUrl: url(env, "TRACING_ZIPKIN_URL", ["http:", "https:"]),
		logFormat: logFormat(env, isTerminal),
		maxLargeBodies: positiveInt(env, "MAX_LARGE_BODIES"),
		sseMaxStreams: positiveInt(env, "SSE_MAX_STREAMS"),
		sseHeartbeatMs: positiveInt(env, "SSE_HEARTBEAT_MS"),
		corsOrigins: corsOrigins(env),
		trustedProxies: trustedProxies(env),
		apiCompat: apiCompat(env),
		memoListCacheBytes: nonNegativeInt(env, "MEMO_LIST_CACHE_MB") * 1024 * 1024
	};
}
