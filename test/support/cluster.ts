import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { jest } from "@jest/globals";
import { NODE_FLAGS, findNatsServer, runMigration, startProcess, type Proc } from "./processes.js";

/**
 * The cluster mode for real: a nats-server and one OS process per group of services, each
 * started with the command the container image runs (`node NODE_FLAGS dist/services/main.js`, so run
 * `npm run build` first).
 */
const natsBinary = findNatsServer();
if (!natsBinary && process.env.CI === "true") throw new Error("nats-server is required in CI (apt-get install nats-server)");

/** Per test and hook of a cluster suite: OS processes start slowly on a loaded machine. */
const CLUSTER_TEST_TIMEOUT_MS = 300_000;

/** `describe` where nats-server is installed, `describe.skip` elsewhere (never in CI), with the cluster time limit. */
export function describeCluster(name: string, suite: () => void): void {
	(natsBinary ? describe : describe.skip)(name, () => {
		jest.setTimeout(CLUSTER_TEST_TIMEOUT_MS);
		suite();
	});
}

const MAIN = path.resolve("dist/services/main.js");

export interface Cluster {
	readonly natsUrl: string;
	/** nats-server requires these credentials; every started process gets them (NATS_USER, NATS_PASSWORD). */
	natsUser: string;
	natsPassword: string;
	/** A temporary directory holding each process's data; removed by `stop`. */
	dataRoot: string;
	/** `http://127.0.0.1:<port>` of the process running the gateway, once it has reported its port. */
	readonly gatewayUrl: string;
	/** The processes started so far, by name. */
	procs: Record<string, Proc>;
	/**
	 * Starts a process running `services` on loopback, NODE_ID `name` and its own data directory
	 * (kept across restarts under the same name). Every port is bound by the process itself
	 * (port 0); a process running the gateway is waited for until it reports its port, which
	 * then is `gatewayUrl`. `env` adds to or overrides these.
	 */
	start(name: string, services: string, env?: Record<string, string>): Promise<Proc>;
	/** Kills nats-server (an outage for every process) and starts it again on the same port. */
	killNats(): Promise<void>;
	restartNats(): Promise<void>;
	/** Kills every process and nats-server and removes the data. */
	stop(): Promise<void>;
}

/** The gateway's start-up line (moleculer-web, logged at info level). */
export const GATEWAY_LISTENING = /API Gateway listening on (http:\/\/127\.0\.0\.1:\d+)/;
/** nats-server's start-up line. */
const NATS_LISTENING = /Listening for client connections on 127\.0\.0\.1:(\d+)/;

/**
 * With CLUSTER_LOG_DIR set, what each process printed is written there when the cluster stops
 * (`<data directory name>-<n>-<process name>.log`): a failure seen under load can then be read
 * in the servers' own words after the data is gone.
 */
async function keepLogs(run: string, started: readonly { name: string; proc: Proc }[]): Promise<void> {
	const dir = process.env.CLUSTER_LOG_DIR;
	if (dir === undefined || dir === "") return;
	await mkdir(dir, { recursive: true });
	await Promise.all(started.map(({ name, proc }, n) => writeFile(path.join(dir, `${run}-${n}-${name}.log`), proc.output())));
}

export async function startCluster(dataPrefix: string): Promise<Cluster> {
	const dataRoot = await mkdtemp(path.join(os.tmpdir(), dataPrefix));
	// On MongoDB services only check their indexes (README "Migrations"): build them as a deploy does.
	if (process.env.MONGO_URL) {
		const migration = await runMigration({ MONGO_URL: process.env.MONGO_URL, DATA_DIR: dataRoot });
		if (migration.code !== 0) throw new Error(`--migrate failed (${migration.code}):\n${migration.output}`);
	}
	const natsUser = "memos";
	const natsPassword = randomBytes(18).toString("base64url");
	// The first start binds a port of its own choosing ("-1"); a restart binds that port again.
	let natsPort = "-1";
	const startNats = async () => {
		const proc = startProcess(natsBinary as string, ["-a", "127.0.0.1", "-p", natsPort, "--user", natsUser, "--pass", natsPassword], {});
		try {
			natsPort = (await proc.reported("nats-server's port", NATS_LISTENING))[1] as string;
		} catch (err) {
			await proc.stop("SIGKILL");
			throw err;
		}
		return proc;
	};
	let nats: Proc | undefined;
	const procs: Record<string, Proc> = {};
	// Every process started, restarts included, for the logs kept on stop.
	const started: { name: string; proc: Proc }[] = [];
	let gatewayUrl: string | undefined;
	const cluster: Cluster = {
		get natsUrl() {
			return `nats://127.0.0.1:${natsPort}`;
		},
		natsUser,
		natsPassword,
		dataRoot,
		get gatewayUrl() {
			if (gatewayUrl === undefined) throw new Error("no gateway process has reported its port yet");
			return gatewayUrl;
		},
		procs,
		async start(name, services, env = {}) {
			const gateway = services.split(",").includes("gateway");
			const proc = startProcess(process.execPath, [...NODE_FLAGS, MAIN], {
				SERVICES: services,
				TRANSPORTER: cluster.natsUrl,
				NATS_USER: natsUser,
				NATS_PASSWORD: natsPassword,
				NODE_ID: name,
				DATA_DIR: path.join(dataRoot, name.replace(/,/g, "_")),
				HOST: "127.0.0.1",
				PORT: "0",
				HEALTH_PORT: "0",
				LOG_LEVEL: gateway ? "info" : "warn",
				...env
			});
			procs[name] = proc;
			started.push({ name, proc });
			if (gateway) gatewayUrl = (await proc.reported(`the port of ${name}`, GATEWAY_LISTENING))[1];
			return proc;
		},
		async killNats() {
			await nats?.stop("SIGKILL");
		},
		async restartNats() {
			nats = await startNats();
		},
		async stop() {
			await Promise.all(Object.values(procs).map(p => p.stop("SIGKILL")));
			await nats?.stop("SIGKILL");
			await keepLogs(path.basename(dataRoot), started);
			await rm(dataRoot, { recursive: true, force: true });
		}
	};
	try {
		nats = await startNats();
	} catch (err) {
		await cluster.stop();
		throw err;
	}
	return cluster;
}
