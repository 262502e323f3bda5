import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { findNatsServer, freePort, memoryOf, startProcess, waitFor, type Proc } from "../test/support/processes.js";
import { startApp, type AppProcess } from "./app-process.js";
import { measure } from "./measure.js";
import { report, type RowResult } from "./report.js";
import { PROFILE_PATH, ROWS, type Row, type RowContext, type Target } from "./rows.js";
import { concurrentUploadMemory, transferRows, type TransferResult, type UploadMemory } from "./transfer.js";
import type { SeedResult } from "./seed.js";

/**
 * `npm run bench [-- --memos N --duration S --cpu-prof DIR --json FILE --seed-cache DIR]`: seeds a fresh
 * embedded app (or copies one seeded by an earlier run into `--seed-cache`), starts the ceiling (raw node:http), the framework floor (bare moleculer-web)
 * and a two-process cluster on a real nats-server, loads each row with autocannon on
 * loopback and prints the table; then uploads (JSON chunked, tus) and downloads `--transfer-mib`
 * MiB on the embedded app. Not part of `npm test`: no figure here is asserted.
 */
const { values: args } = parseArgs({
	options: {
		memos: { type: "string", default: "10000" },
		duration: { type: "string", default: "10" },
		warmup: { type: "string", default: "2" },
		"transfer-mib": { type: "string", default: "100" },
		"transfers-only": { type: "boolean", default: false },
		"cpu-prof": { type: "string" },
		json: { type: "string" },
		"seed-cache": { type: "string" }
	}
});
const MEMOS = Number(args.memos);
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
if (!Number.isSafeInteger(MEMOS) || MEMOS < 1) throw new Error("--memos must be a positive integer");
const TRANSFER_MIB = Number(args["transfer-mib"]);
if (!Number.isSafeInteger(TRANSFER_MIB) || TRANSFER_MIB < 1) throw new Error("--transfer-mib must be a positive integer");
if (!(DURATION > 0 && DURATION <= 120) || !(WARMUP >= 0 && WARMUP <= 30)) throw new Error("--duration must be 1-120 s and --warmup 0-30 s");

/** Issue 19's memory target: the gateway's RSS under 8 concurrent uploads of 30 MiB. */
const CONCURRENT_UPLOADS = 8;
const CONCURRENT_UPLOAD_MIB = 30;

const here = path.dirname(new URL(import.meta.url).pathname);
const workDir = await mkdtemp(path.join(os.tmpdir(), "memos-bench-"));
const stoppers: (() => Promise<unknown>)[] = [];
const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

async function appEnv(name: string, port: number): Promise<Record<string, string>> {
	return {
		NODE_ID: `bench-${name}`,
		HOST: "127.0.0.1",
		PORT: String(port),
		HEALTH_PORT: String(await freePort()),
		METRICS_PORT: String(await freePort()),
		DATA_DIR: path.join(workDir, name)
	};
}

async function ok(url: string, init?: RequestInit): Promise<boolean> {
	const res = await fetch(url, init);
	await res.arrayBuffer();
	return res.status === 200;
}

/** The cluster's first user, its instance ADMIN. */
const CLUSTER_ADMIN = "bench0";
const CLUSTER_PASSWORD = "bench password 1";

/** The processes serving each target, whose CPU time the rows count. */
const serverPids: Partial<Record<Target, number[]>> = {};

function pidsOf(...children: { pid?: number }[]): number[] {
	return children.map(child => child.pid).filter((pid): pid is number => pid !== undefined);
}

/** A bench server (servers/*.ts) serving `body`; it prints its port once listening. */
async function startBenchServer(target: Target, script: string, body: Buffer): Promise<string> {
	const proc: Proc = startProcess(process.execPath, [path.join(here, "servers", script)], { BENCH_BODY: body.toString("base64") });
	stoppers.push(() => proc.stop());
	serverPids[target] = pidsOf(proc.child);
	const port = await waitFor(script, async () => (/"port":(\d+)/.exec(proc.output())?.[1] as string | undefined));
	return `http://127.0.0.1:${port}`;
}

/**
 * With `--seed-cache DIR`, DIR/<memos>/ keeps a seeded DATA_DIR and its seed.json: seeding
 * 100,000 memos takes minutes, and every run needs the same data. Each run gets a copy, since
 * CreateMemo and the transfers write to it; the copy is made while no process has it open.
 */
async function seedOrReuse(): Promise<SeedResult & { reused: boolean }> {
	const appDir = path.join(workDir, "app");
	if (!args["seed-cache"]) return { ...(await seed()), reused: false };
	const cacheDir = path.resolve(args["seed-cache"], String(MEMOS));
	const cached = await readFile(path.join(cacheDir, "seed.json"), "utf8").catch((err: NodeJS.ErrnoException) => {
		if (err.code === "ENOENT") return undefined;
		throw err;
	});
	if (cached !== undefined) {
		log(`copying the DATA_DIR seeded with ${MEMOS} memos from ${cacheDir}`);
		await cp(path.join(cacheDir, "data"), appDir, { recursive: true });
		return { ...(JSON.parse(cached) as SeedResult), reused: true };
	}
	const seeded = await seed();
	await rm(cacheDir, { recursive: true, force: true });
	await mkdir(cacheDir, { recursive: true });
	await cp(appDir, path.join(cacheDir, "data"), { recursive: true });
	await writeFile(path.join(cacheDir, "seed.json"), JSON.stringify(seeded));
	log(`seeded DATA_DIR kept in ${cacheDir}`);
	return { ...seeded, reused: false };
}

async function seed(): Promise<SeedResult> {
	const out = path.join(workDir, "seed.json");
	log(`seeding ${MEMOS} memos…`);
	const proc = startProcess(process.execPath, [path.join(here, "seed.js")], {
		...(await appEnv("app", 0)),
		LOG_LEVEL: "warn",
		BENCH_MEMOS: String(MEMOS),
		BENCH_SEED_OUT: out
	});
	const code = await proc.exited;
	if (code !== 0) throw new Error(`seeding failed (exit ${code}):\n${proc.output()}`);
	return JSON.parse(await readFile(out, "utf8")) as SeedResult;
}

async function signIn(baseUrl: string, username: string, password: string): Promise<string> {
	const res = await fetch(`${baseUrl}/api/v1/auth/signin`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ passwordCredentials: { username, password } })
	});
	if (res.status !== 200) throw new Error(`SignIn ${username} answered ${res.status}: ${await res.text()}`);
	return ((await res.json()) as { accessToken: string }).accessToken;
}

/**
 * The gateway and the other services (instance and auth, which the profile reads; attachments
 * and those it asks, for the transfers; blobs on local disk) in two processes over a nats-server of their own.
 */
async function startCluster(): Promise<{ baseUrl: string; gatewayPid: number }> {
	const nats = findNatsServer();
	if (!nats) throw new Error("nats-server is required for the cluster row (apt-get install nats-server)");
	const natsPort = await freePort();
	const natsProc = startProcess(nats, ["-a", "127.0.0.1", "-p", String(natsPort)], {});
	stoppers.push(() => natsProc.stop());
	const transporter = { TRANSPORTER: `nats://127.0.0.1:${natsPort}` };
	const instanceEnv = await appEnv("cluster-instance", await freePort());
	const instance = await startApp({
		env: { ...instanceEnv, ...transporter, SERVICES: "instance,auth,memos,spaces,attachments" },
		port: Number(instanceEnv.HEALTH_PORT),
		logFile: path.join(workDir, "cluster-instance.log"),
		ready: baseUrl => ok(`${baseUrl}/readyz`)
	});
	stoppers.push(() => instance.stop());
	const gatewayPort = await freePort();
	const gateway = await startApp({
		env: { ...(await appEnv("cluster-gateway", gatewayPort)), ...transporter, SERVICES: "gateway" },
		port: gatewayPort,
		logFile: path.join(workDir, "cluster-gateway.log"),
		ready: baseUrl => ok(`${baseUrl}${PROFILE_PATH}`)
	});
	stoppers.push(() => gateway.stop());
	serverPids.cluster = pidsOf(natsProc.child, instance.child, gateway.child);
	// An admin, so that the profile carries one as the seeded app's does.
	const res = await fetch(`${gateway.baseUrl}/api/v1/users`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ username: CLUSTER_ADMIN, password: CLUSTER_PASSWORD })
	});
	if (res.status !== 200) throw new Error(`CreateUser on the cluster answered ${res.status}: ${await res.text()}`);
	const [gatewayPid] = pidsOf(gateway.child);
	if (gatewayPid === undefined) throw new Error("the cluster's gateway has no pid");
	return { baseUrl: gateway.baseUrl, gatewayPid };
}

/** The embedded app with the ListMemos response cache off, a second process on the app's DATA_DIR (SQLite in WAL mode serves both). */
async function startUncachedApp(): Promise<AppProcess> {
	const port = await freePort();
	const uncached = await startApp({
		env: { ...(await appEnv("app", port)), NODE_ID: "bench-app-uncached", MEMO_LIST_CACHE_MB: "0" },
		port,
		logFile: path.join(workDir, "app-uncached.log"),
		ready: baseUrl => ok(`${baseUrl}/readyz`)
	});
	stoppers.push(() => uncached.stop());
	serverPids["app-uncached"] = pidsOf(uncached.child);
	return uncached;
}

async function runTransfers(target: "app" | "cluster", baseUrl: string, token: string): Promise<TransferResult[]> {
	const label = target === "app" ? "embedded" : "cluster";
	log(`transfers of ${TRANSFER_MIB} MiB, ${label}`);
	const rows = await transferRows(label, { baseUrl, token, pids: serverPids[target] ?? [] }, TRANSFER_MIB * 2 ** 20);
	for (const row of rows) log(`${row.name}: ${row.mibPerSecond.toFixed(1)} MiB/s`);
	return rows;
}

async function runRow(row: Row, baseUrl: string, context: RowContext): Promise<RowResult> {
	const requests = row.requests(context);
	const pids = serverPids[row.target] ?? [];
	if (WARMUP > 0) await measure(baseUrl, requests, row.connections, WARMUP, pids);
	const measured = await measure(baseUrl, requests, row.connections, DURATION, pids);
	log(`${row.name}: ${Math.round(measured.requestsPerSecond)} req/s${measured.failures > 0 ? `, ${measured.failures} FAILED` : ""}`);
	return { row, measured };
}

async function main(): Promise<number> {
	const loadBefore = os.loadavg();
	const seeded = await seedOrReuse();
	log(`${seeded.reused ? "reused data seeded" : "seeded"} in ${seeded.seconds.toFixed(1)} s; starting the embedded app`);

	const appPort = await freePort();
	const app: AppProcess = await startApp({
		env: await appEnv("app", appPort),
		port: appPort,
		logFile: path.join(workDir, "app.log"),
		nodeArgs: args["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(args["cpu-prof"])}`] : [],
		ready: baseUrl => ok(`${baseUrl}/readyz`)
	});
	stoppers.push(() => app.stop());
	serverPids.app = pidsOf(app.child);
	const readyMemory = await memoryOf(app.child.pid);
	const profileBody = Buffer.from(await (await fetch(`${app.baseUrl}${PROFILE_PATH}`)).arrayBuffer());
	const bases: Partial<Record<Target, string>> = {
		app: app.baseUrl,
		raw: await startBenchServer("raw", "raw-http.js", profileBody),
		bare: await startBenchServer("bare", "bare-gateway.js", profileBody)
	};
	const context: RowContext = { token: await signIn(app.baseUrl, seeded.users[0] as string, seeded.password), sampleMemoIds: seeded.sampleMemoIds };

	const results: RowResult[] = [];
	const transfers: TransferResult[] = [];
	let afterLoad = readyMemory;
	let gatewayPid: number | undefined;
	let uncached: AppProcess | undefined;
	const startTheCluster = async () => {
		await uncached?.stop();
		transfers.push(...(await runTransfers("app", app.baseUrl, context.token)));
		afterLoad = await memoryOf(app.child.pid);
		await app.stop();
		log("starting the cluster (nats-server, gateway, the other services)");
		({ baseUrl: bases.cluster, gatewayPid } = await startCluster());
	};
	for (const row of args["transfers-only"] ? [] : ROWS) {
		if (row.target === "cluster" && bases.cluster === undefined) await startTheCluster();
		if (row.target === "app-uncached" && uncached === undefined) {
			uncached = await startUncachedApp();
			bases["app-uncached"] = uncached.baseUrl;
		}
		results.push(await runRow(row, bases[row.target] as string, context));
	}
	if (bases.cluster === undefined) await startTheCluster();
	const clusterTarget = { baseUrl: bases.cluster as string, token: await signIn(bases.cluster as string, CLUSTER_ADMIN, CLUSTER_PASSWORD), pids: serverPids.cluster ?? [] };
	transfers.push(...(await runTransfers("cluster", clusterTarget.baseUrl, clusterTarget.token)));
	log(`${CONCURRENT_UPLOADS} concurrent tus uploads of ${CONCURRENT_UPLOAD_MIB} MiB, cluster`);
	const gatewayUploadMemory: UploadMemory = await concurrentUploadMemory(clusterTarget, gatewayPid as number, CONCURRENT_UPLOADS, CONCURRENT_UPLOAD_MIB * 2 ** 20);
	log(`cluster gateway's peak RSS: ${gatewayUploadMemory.peakMiB.toFixed(0)} MiB`);

	const facts = {
		memos: seeded.memos,
		comments: seeded.comments,
		users: seeded.users.length,
		spaces: seeded.spaces,
		seedSeconds: seeded.seconds,
		seedReused: seeded.reused,
		durationSeconds: DURATION,
		transfers,
		gatewayUploadMemory,
		startupMs: app.startupMs,
		startupCpuMs: app.startupCpuMs,
		memory: { readyMiB: readyMemory.rssMiB, afterLoadMiB: afterLoad.rssMiB, peakMiB: afterLoad.peakMiB },
		loadBefore,
		loadAfter: os.loadavg()
	};
	process.stdout.write(`${report(results, facts)}\n`);
	if (args.json) await writeFile(args.json, JSON.stringify({ facts, rows: results.map(r => ({ name: r.row.name, connections: r.row.connections, ...r.measured })) }, null, 2));
	return results.some(r => r.measured.failures > 0) ? 1 : 0;
}

let code = 1;
try {
	code = await main();
} catch (err) {
	console.error("bench failed:", err);
	console.error(`logs kept in ${workDir}`);
} finally {
	for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
	if (code === 0) await rm(workDir, { recursive: true, force: true });
	else console.error(`bench: logs kept in ${workDir}`);
}
process.exit(code);
