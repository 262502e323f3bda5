import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { findNatsServer, freePort, portOpen, startProcess, waitFor, type Proc } from "./processes.js";

/**
 * The cluster mode for real: a nats-server and one OS process per group of services, each
 * started with the command the container image runs (`node dist/services/main.js`, so run
 * `npm run build` first).
 */
const natsBinary = findNatsServer();
if (!natsBinary && process.env.CI === "true") throw new Error("nats-server is required in CI (apt-get install nats-server)");

/** `describe` where nats-server is installed, `describe.skip` elsewhere (never in CI). */
export const describeCluster = natsBinary ? describe : describe.skip;

const MAIN = path.resolve("dist/services/main.js");

export interface Cluster {
	natsUrl: string;
	/** nats-server requires these credentials; every started process gets them (NATS_USER, NATS_PASSWORD). */
	natsUser: string;
	natsPassword: string;
	/** A temporary directory holding each process's data; removed by `stop`. */
	dataRoot: string;
	/** `http://127.0.0.1:<port>` of the process running the gateway. */
	gatewayUrl: string;
	/** The processes started so far, by name. */
	procs: Record<string, Proc>;
	/**
	 * Starts a process running `services` on loopback with free ports, NODE_ID `name` and its
	 * own data directory (kept across restarts under the same name); a process running the
	 * gateway listens on `gatewayUrl`. `env` adds to or overrides these.
	 */
	start(name: string, services: string, env?: Record<string, string>): Promise<Proc>;
	/** Kills nats-server (an outage for every process) and starts it again on the same port. */
	killNats(): Promise<void>;
	restartNats(): Promise<void>;
	/** Kills every process and nats-server and removes the data. */
	stop(): Promise<void>;
}

export async function startCluster(dataPrefix: string): Promise<Cluster> {
	const dataRoot = await mkdtemp(path.join(os.tmpdir(), dataPrefix));
	const natsPort = await freePort();
	const gatewayPort = await freePort();
	const natsUser = "memos";
	const natsPassword = randomBytes(18).toString("base64url");
	const startNats = () => startProcess(natsBinary as string, ["-a", "127.0.0.1", "-p", String(natsPort), "--user", natsUser, "--pass", natsPassword], {});
	const natsReady = () => waitFor("nats-server", async () => ((await portOpen(natsPort)) ? true : undefined));
	let nats = startNats();
	const procs: Record<string, Proc> = {};
	const cluster: Cluster = {
		natsUrl: `nats://127.0.0.1:${natsPort}`,
		natsUser,
		natsPassword,
		dataRoot,
		gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
		procs,
		async start(name, services, env = {}) {
			const proc = startProcess(process.execPath, [MAIN], {
				SERVICES: services,
				TRANSPORTER: cluster.natsUrl,
				NATS_USER: natsUser,
				NATS_PASSWORD: natsPassword,
				NODE_ID: name,
				DATA_DIR: path.join(dataRoot, name.replace(/,/g, "_")),
				HOST: "127.0.0.1",
				PORT: String(services.split(",").includes("gateway") ? gatewayPort : await freePort()),
				HEALTH_PORT: String(await freePort()),
				LOG_LEVEL: "warn",
				...env
			});
			procs[name] = proc;
			return proc;
		},
		async killNats() {
			await nats.stop("SIGKILL");
		},
		async restartNats() {
			nats = startNats();
			await natsReady();
		},
		async stop() {
			await Promise.all(Object.values(procs).map(p => p.stop("SIGKILL")));
			await nats.stop("SIGKILL");
			await rm(dataRoot, { recursive: true, force: true });
		}
	};
	try {
		await natsReady();
	} catch (err) {
		await cluster.stop();
		throw err;
	}
	return cluster;
}
