import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";

/** A free TCP port on loopback (bound and released; the caller binds it next). */
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

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const result = await probe().catch(() => undefined);
		if (result !== undefined) return result;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise(r => setTimeout(r, 100));
	}
}

export function portOpen(port: number): Promise<boolean> {
	return new Promise(resolve => {
		const socket = net.connect(port, "127.0.0.1");
		socket.once("connect", () => {
			socket.destroy();
			resolve(true);
		});
		socket.once("error", () => resolve(false));
	});
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
	/** SIGTERM (or the given signal) and wait for the exit code. */
	stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startProcess(command: string, args: string[], env: Record<string, string>): Proc {
	const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
	let output = "";
	child.stdout?.on("data", chunk => (output += String(chunk)));
	child.stderr?.on("data", chunk => (output += String(chunk)));
	const exited = new Promise<number | null>(resolve => child.once("exit", code => resolve(code)));
	return {
		child,
		output: () => output,
		exited,
		async stop(signal: NodeJS.Signals = "SIGTERM") {
			if (child.exitCode === null && child.signalCode === null) child.kill(signal);
			return exited;
		}
	};
}
