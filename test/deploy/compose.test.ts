import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { CATALOG } from "../../services/catalog.js";
import { SERVICE_NAMES, loadConfig, type ServiceName } from "../../shared/runtime/config.js";

/** docker-compose.yml as `docker compose` reads it: merge keys resolved, `${VAR:-default}` at its default. */
interface ComposeService {
	image?: string;
	build?: unknown;
	environment?: Record<string, string | number | boolean> | string[];
	depends_on?: Record<string, { condition: string }> | string[];
	volumes?: (string | { type?: string; source?: string })[];
	ports?: string[];
	healthcheck?: { test: string[] | string };
	stop_grace_period?: string;
}
interface ComposeFile {
	services: Record<string, ComposeService>;
	configs?: Record<string, { content?: string }>;
	volumes?: Record<string, unknown>;
}

const compose = parse(readFileSync("docker-compose.yml", "utf8"), { merge: true }) as ComposeFile;

const interpolate = (value: string) => value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/g, (_, _name, fallback: string | undefined) => fallback ?? "");

function envOf(service: ComposeService): Record<string, string> {
	const raw = service.environment ?? {};
	const pairs = Array.isArray(raw) ? raw.map(e => e.split(/=(.*)/s, 2) as [string, string]) : Object.entries(raw).map(([k, v]) => [k, String(v)] as [string, string]);
	return Object.fromEntries(pairs.map(([k, v]) => [k, interpolate(v ?? "")]));
}

const appServices = Object.entries(compose.services).filter(([, s]) => envOf(s).SERVICES !== undefined);
const servicesIn = (s: ComposeService) => (envOf(s).SERVICES as string).split(",").map(n => n.trim()) as ServiceName[];
const dependsOn = (s: ComposeService) => (Array.isArray(s.depends_on) ? Object.fromEntries(s.depends_on.map(n => [n, { condition: "service_started" }])) : (s.depends_on ?? {}));
const durationMs = (text: string) => {
	const m = /^(\d+)(ms|s|m)$/.exec(text);
	if (!m) throw new Error(`unreadable duration ${text}`);
	return Number(m[1]) * { ms: 1, s: 1000, m: 60000 }[m[2] as "ms" | "s" | "m"];
};

describe("docker-compose.yml", () => {
	test("runs each of the eight services in its own container, all from the one image and the one build", () => {
		expect(appServices.flatMap(([, s]) => servicesIn(s)).sort()).toEqual([...SERVICE_NAMES].sort());
		for (const [, s] of appServices) expect(servicesIn(s)).toHaveLength(1);
		expect(new Set(appServices.map(([, s]) => s.image)).size).toBe(1);
		expect(new Set(appServices.map(([, s]) => JSON.stringify(s.build))).size).toBe(1);
		expect(appServices[0]?.[1].build).toBeDefined();
	});

	test("each container's environment is a valid configuration with the transporter and the stores its services need", () => {
		for (const [container, s] of appServices) {
			const config = loadConfig({ ...envOf(s), NODE_ID: `${container}-1` });
			expect({ container, transporter: config.transporter }).toEqual({ container, transporter: "nats://nats:4222" });
			for (const name of config.services) {
				if (CATALOG[name].documents) expect({ container, mongo: config.mongoUrl }).toEqual({ container, mongo: expect.stringMatching(/^mongodb:\/\/mongo:27017\//) });
				if (CATALOG[name].blobs) {
					expect({ container, s3: config.s3?.endPoint }).toEqual({ container, s3: "s3" });
					const identity = interpolate(compose.configs?.["seaweedfs-s3"]?.content as string);
					expect(identity).toContain(`"accessKey": "${config.s3?.accessKey}"`);
					expect(identity).toContain(`"secretKey": "${config.s3?.secretKey}"`);
				}
			}
		}
	});

	test("MongoDB runs as a one-member replica set that its health check initiates, and every MONGO_URL names the set", () => {
		const mongo = compose.services.mongo as ComposeService & { command?: string[] };
		expect(mongo.command).toEqual(expect.arrayContaining(["--replSet", "rs0"]));
		expect(JSON.stringify(mongo.healthcheck?.test)).toContain("rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] })");
		const urls = appServices.map(([, s]) => envOf(s).MONGO_URL).filter((url): url is string => url !== undefined);
		expect(urls.length).toBeGreaterThan(0);
		for (const url of urls) expect(new URL(url).searchParams.get("replicaSet")).toBe("rs0");
	});

	test("a one-shot migrate container builds the indexes from the one image, and every service keeping documents starts only after it succeeded", () => {
		const migrate = compose.services.migrate as ComposeService & { command?: string[]; restart?: string };
		expect({ image: migrate.image, command: migrate.command, restart: migrate.restart }).toEqual({ image: appServices[0]?.[1].image, command: ["node", "dist/services/main.js", "--migrate"], restart: "no" });
		const mongoUrl = envOf(migrate).MONGO_URL;
		for (const [container, s] of appServices) {
			if (!servicesIn(s).some(n => CATALOG[n].documents)) continue;
			expect({ container, mongo: envOf(s).MONGO_URL, migrate: dependsOn(s).migrate?.condition }).toEqual({ container, mongo: mongoUrl, migrate: "service_completed_successfully" });
		}
	});

	test("NATS requires the user and password every service logs in with", () => {
		const nats = compose.services.nats as ComposeService & { command: string[] };
		const args = nats.command.map(interpolate);
		for (const [container, s] of appServices) {
			const { bus } = loadConfig({ ...envOf(s), NODE_ID: "x" });
			expect({ container, user: args[args.indexOf("--user") + 1], pass: args[args.indexOf("--pass") + 1] }).toEqual({ container, user: bus.user, pass: bus.password });
		}
	});

	test("infrastructure images are pinned by version, none is MinIO's (gone from Docker Hub), NATS in a supported line", () => {
		const images = Object.values(compose.services).filter(s => s.build === undefined).map(s => s.image as string);
		for (const image of images) {
			expect(image).toMatch(/:\d+(\.\d+)+(-[a-z]+)?$/);
			expect(image).not.toMatch(/minio/);
		}
		expect(Number(/^nats:2\.(\d+)/.exec(images.find(i => i.startsWith("nats:")) as string)?.[1])).toBeGreaterThanOrEqual(14);
	});

	test("every depends_on target exists, and the services wait for healthy infrastructure", () => {
		for (const [container, s] of Object.entries(compose.services)) {
			for (const target of Object.keys(dependsOn(s))) expect({ container, target, exists: target in compose.services }).toEqual({ container, target, exists: true });
		}
		for (const [container, s] of appServices) {
			const deps = dependsOn(s);
			const needs = servicesIn(s).map(n => CATALOG[n]);
			expect({ container, nats: deps.nats?.condition }).toEqual({ container, nats: "service_healthy" });
			if (needs.some(e => e.documents)) expect({ container, mongo: deps.mongo?.condition }).toEqual({ container, mongo: "service_healthy" });
			if (needs.some(e => e.blobs)) expect({ container, s3: deps.s3?.condition }).toEqual({ container, s3: "service_healthy" });
		}
	});

	test("every container that others wait on, and every service container, has a health check; the services' check /healthz", () => {
		const waitedOn = new Set(Object.values(compose.services).flatMap(s => Object.entries(dependsOn(s)).filter(([, d]) => d.condition === "service_healthy").map(([t]) => t)));
		for (const name of waitedOn) expect({ name, healthcheck: compose.services[name]?.healthcheck !== undefined }).toEqual({ name, healthcheck: true });
		for (const [container, s] of appServices) expect({ container, test: JSON.stringify(s.healthcheck?.test) }).toEqual({ container, test: expect.stringContaining("/healthz") });
	});

	test("every named volume is declared", () => {
		const declared = Object.keys(compose.volumes ?? {});
		for (const [container, s] of Object.entries(compose.services)) {
			for (const volume of s.volumes ?? []) {
				const source = typeof volume === "string" ? (volume.split(":")[0] as string) : (volume.source ?? "");
				if (source === "" || /^[./~]/.test(source)) continue;
				expect({ container, volume: source, declared: declared.includes(source) }).toEqual({ container, volume: source, declared: true });
			}
		}
		for (const name of ["mongo", "s3", "nats"]) expect((compose.services[name]?.volumes ?? []).length).toBeGreaterThan(0);
	});

	test("only the gateway publishes a port, the API's 5230", () => {
		for (const [container, s] of appServices) {
			const ports = (s.ports ?? []).map(p => interpolate(p));
			if (servicesIn(s).includes("gateway")) expect(ports).toEqual(["5230:5230"]);
			else expect({ container, ports }).toEqual({ container, ports: [] });
		}
	});

	test("containers get more time to stop than the broker's shutdown timeout", () => {
		for (const [container, s] of appServices) {
			const { shutdownTimeoutMs } = loadConfig({ ...envOf(s), NODE_ID: "x" });
			expect({ container, enough: durationMs(s.stop_grace_period ?? "10s") > shutdownTimeoutMs }).toEqual({ container, enough: true });
		}
	});
});
