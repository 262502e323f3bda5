import { spawn, type ChildProcess } from "node:child_process";
import { openSync, closeSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { NODE_FLAGS } from "../test/support/processes.js";
import { cpuSeconds } from "./measure.js";

/** The command the container image runs, built by `npm run bench` before it starts. */
export const MAIN = path.resolve("dist/services/main.js");

export interface AppProcess {
	child: ChildProcess;
	baseUrl: string;
	/** Milliseconds from spawn until `ready` first answered. */
	startupMs: number;
	/** CPU time the process spent until then: what start-up costs, however busy the machine. */
	startupCpuMs: number;
	/** SIGTERM, then the exit (SIGKILL after `graceMs`). */
	stop(graceMs?: number): Promise<void>;
}

/**
 * Runs `node NODE_FLAGS [nodeArgs] dist/services/main.js` (as `npm start` does) with `env`, its output appended to `logFile`
 * (an app at info writes a line per request: a file keeps it off the bench's own event loop),
 * and waits until `ready(baseUrl)` holds, probing every 10 ms.
 */
export async function startApp(opts: {
	env: Record<string, string>;
	port: number;
	logFile: string;
	nodeArgs?: string[];
	ready: (baseUrl: string) => Promise<boolean>;
	timeoutMs?: number;
}): Promise<AppProcess> {
	const log = openSync(opts.logFile, "a");
	const started = performance.now();
	const child = spawn(process.execPath, [...NODE_FLAGS, ...(opts.nodeArgs ?? []), MAIN], { env: { ...process.env, ...opts.env }, stdio: ["ignore", log, log] });
	closeSync(log);
	const exited = new Promise<void>(resolve => child.once("exit", () => resolve()));
	const baseUrl = `http://127.0.0.1:${opts.port}`;
	const stop = async (graceMs = 15_000) => {
		if (child.exitCode !== null || child.signalCode !== null) return;
		child.kill("SIGTERM");
		const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
		await exited;
		clearTimeout(timer);
	};
	const deadline = started + (opts.timeoutMs ?? 300_000);
	for (;;) {
		if (child.exitCode !== null) throw new Error(`${MAIN} exited with ${child.exitCode} before it was ready; see ${opts.logFile}:\n${await tail(opts.logFile)}`);
		if (await opts.ready(baseUrl).catch(() => false)) break;
		if (performance.now() > deadline) {
			await stop(1000);
			throw new Error(`${MAIN} was not ready in time; see ${opts.logFile}`);
		}
		await new Promise(resolve => setTimeout(resolve, 10));
	}
	const startupMs = performance.now() - started;
	return { child, baseUrl, startupMs, startupCpuMs: (await cpuSeconds(child.pid === undefined ? [] : [child.pid])) * 1000, stop };
}

async function tail(file: string): Promise<string> {
	const text = await readFile(file, "utf8").catch(() => "");
	return text.split("\n").slice(-20).join("\n");
}
