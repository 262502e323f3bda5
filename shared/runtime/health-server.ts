import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Shutdown } from "./shutdown.js";

/** A named readiness check; it throws (or rejects) when its part cannot serve. */
export interface ReadinessCheck {
	name: string;
	check(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 3000;

async function runCheck(check: ReadinessCheck): Promise<boolean> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error("timed out")), CHECK_TIMEOUT_MS);
	});
	try {
		await Promise.race([check.check(), timeout]);
		return true;
	} catch {
		return false;
	} finally {
		clearTimeout(timer);
	}
}

/** Runs every check; the names of those that failed, in order. */
export async function failingChecks(checks: readonly ReadinessCheck[]): Promise<string[]> {
	const results = await Promise.all(checks.map(runCheck));
	return checks.filter((_, i) => !results[i]).map(c => c.name);
}

export interface HealthAnswer {
	status: number;
	body: Record<string, unknown>;
}

export function liveness(): HealthAnswer {
	return { status: 200, body: { status: "ok" } };
}

export async function readiness(checks: readonly ReadinessCheck[], stopping: boolean): Promise<HealthAnswer> {
	const failing = await failingChecks(checks);
	if (stopping) failing.unshift("shutdown");
	return failing.length === 0 ? { status: 200, body: { status: "ready" } } : { status: 503, body: { status: "not_ready", failing } };
}

/** `/healthz` and `/readyz` of contract 13 on the process's health port. */
export class HealthServer {
	private readonly server: http.Server;

	/**
	 * From the start of `shutdown` readiness fails, so load balancers stop sending traffic; the
	 * port keeps answering (503) until the process has drained.
	 */
	constructor(
		private readonly checks: () => readonly ReadinessCheck[],
		private readonly shutdown: Shutdown
	) {
		this.server = http.createServer((req, res) => {
			void this.answer(req.method ?? "GET", (req.url ?? "/").split("?")[0] as string).then(({ status, body }) => {
				const text = JSON.stringify(body);
				res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(text) });
				res.end(req.method === "HEAD" ? undefined : text);
			});
		});
	}

	private async answer(method: string, url: string): Promise<HealthAnswer> {
		if (method !== "GET" && method !== "HEAD") return { status: 501, body: { code: 12, message: "Method Not Allowed", details: [] } };
		if (url === "/healthz") return liveness();
		if (url === "/readyz") return readiness(this.checks(), this.shutdown.stopping);
		return { status: 404, body: { code: 5, message: "Not Found", details: [] } };
	}

	listen(port: number, host: string): Promise<number> {
		return new Promise((resolve, reject) => {
			this.server.once("error", reject);
			this.server.listen(port, host, () => resolve((this.server.address() as AddressInfo).port));
		});
	}

	/** Closes at once: probes use short requests, and none may hold the process open. */
	close(): Promise<void> {
		this.server.closeAllConnections();
		return new Promise(resolve => (this.server.listening ? this.server.close(() => resolve()) : resolve()));
	}
}
