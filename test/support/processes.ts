import { spawn, type ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";

/**
 * A free TCP port on loopback (bound and released; the caller binds it next). Another socket
 * can take it in between: processes the tests start bind port 0 and report theirs (Proc.reported).
 */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const { port } = server.address() as net.AddressInfo;
			server.close(() => resolve(port));
		});
	});
}

/**
 * Polls `probe` until it gives a value. The time limit only turns a condition that never comes
 * into a failure; it is generous because processes start slowly on a loaded machine.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const result = await probe().catch(() => undefined);
		if (result !== undefined) return result;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise(r => setTimeout(r, 100));
	}
}

/** The `nats-server` binary: on PATH or where Debian's package puts it. */
export function findNatsServer(): string | undefined {
	const dirs = [...(process.env.PATH ?? "").split(path.delimiter), "/usr/sbin", "/usr/local/bin", "/usr/bin"];
	return dirs.map(d => path.join(d, "nats-server")).find(p => existsSync(p));
}

export interface Proc {
	child: ChildProcess;
	output(): string;
	exited: Promise<number | null>;
	/**
	 * The first match of `pattern` in the output so far or to come, for what a process reports
	 * once it runs (such as the port it bound); rejects with the output if the process exits first.
	 */
	reported(what: string, pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
	/** SIGTERM (or the given signal) and wait for the exit code. */
	stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * The flags the app's processes run with, as the container image (Dockerfile CMD) and `npm start`
 * give them: AsyncLocalStorage (the request id of log lines, request-context.ts) on V8's
 * continuation data instead of async hooks, which cost every promise of every request; and two
 * V8 worker threads (concurrent marking and sweeping, background compilation) instead of Node's
 * four. Each worker mallocs in an arena of its own that stays resident: at 100,000 memos the
 * embedded app's arenas after the bench's rows went from 21-23 MiB to 11-12 MiB and its peak RSS
 * from 211-224 to 197-201 MiB (issue 15), with no difference beyond the noise in the request rows;
 * the machines it is measured on have 2 cores, where the other two workers never ran beside them anyway.
 */
export const NODE_FLAGS = ["--experimental-async-context-frame", "--v8-pool-size=2"];

export function startProcess(command: string, args: string[], env: Record<string, string>): Proc {
	const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
	let output = "";
	const outputEvents = new EventEmitter();
	const append = (chunk: unknown) => {
		output += String(chunk);
		outputEvents.emit("output");
	};
	child.stdout?.on("data", append);
	child.stderr?.on("data", append);
	const exited = new Promise<number | null>(resolve => child.once("exit", code => resolve(code)));
	return {
		child,
		output: () => output,
		exited,
		reported(what, pattern, timeoutMs = 90000) {
			return new Promise((resolve, reject) => {
				const done = () => {
					clearTimeout(timer);
					outputEvents.off("output", check);
					child.off("exit", onExit);
				};
				const check = () => {
					const match = pattern.exec(output);
					if (match === null) return;
					done();
					resolve(match);
				};
				const onExit = (code: number | null) => {
					done();
					reject(new Error(`${what}: the process exited (${code}) before reporting it:\n${output}`));
				};
				const timer = setTimeout(() => {
					done();
					reject(new Error(`${what}: not reported within ${timeoutMs} ms:\n${output}`));
				}, timeoutMs);
				outputEvents.on("output", check);
				child.once("exit", onExit);
				check();
				if (child.exitCode !== null || child.signalCode !== null) onExit(child.exitCode);
			});
		},
		async stop(signal: NodeJS.Signals = "SIGTERM") {
			if (child.exitCode === null && child.signalCode === null) child.kill(signal);
			return exited;
		}
	};
}

/**
 * `node dist/services/main.js --migrate` with `env` (DATA_DIR, MONGO_URL), as the Kubernetes Job
 * and the compose service run it: the exit code and what it printed.
 */
export async function runMigration(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
	const proc = startProcess(process.execPath, ["dist/services/main.js", "--migrate"], { LOG_LEVEL: "warn", ...env });
	const code = await proc.exited;
	return { code, output: proc.output() };
}

/** Resident and peak resident memory of a process, in MiB (Linux /proc). */
export async function memoryOf(pid: number | undefined): Promise<{ rssMiB: number; peakMiB: number }> {
	const status = pid === undefined ? "" : await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
	const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
	return { rssMiB: kib("VmRSS") / 1024, peakMiB: kib("VmHWM") / 1024 };
}

/** Resets a process's peak resident memory (VmHWM) to its resident memory now (Linux proc(5), clear_refs 5). */
export async function resetPeakMemory(pid: number | undefined): Promise<void> {
	if (pid === undefined) throw new Error("the process has no pid: it did not start");
	await writeFile(`/proc/${pid}/clear_refs`, "5");
}
