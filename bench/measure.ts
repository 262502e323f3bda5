import { readFile } from "node:fs/promises";
import autocannon, { type Request } from "autocannon";

export interface Measured {
	requestsPerSecond: number;
	p50Ms: number;
	p99Ms: number;
	/** CPU time the server processes spent per request: steadier than req/s on a shared machine. */
	cpuUsPerRequest: number;
	/** Responses other than 2xx, connection errors and timeouts (1 if nothing completed): any is a failed row. */
	failures: number;
}

/** Linux counts process CPU time in /proc in ticks of 1/100 s (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** User plus system CPU seconds of processes so far (/proc/<pid>/stat fields 14 and 15). */
export async function cpuSeconds(pids: number[]): Promise<number> {
	let ticks = 0;
	for (const pid of pids) {
		const stat = await readFile(`/proc/${pid}/stat`, "utf8");
		// The command name (field 2) may hold spaces; the fields after it are plain.
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		ticks += Number(fields[11]) + Number(fields[12]);
	}
	return ticks / TICKS_PER_SECOND;
}

/**
 * One autocannon run against loopback: `connections` clients cycling through `requests`,
 * while the CPU time of `serverPids` is counted.
 */
export async function measure(baseUrl: string, requests: Request[], connections: number, durationSeconds: number, serverPids: number[]): Promise<Measured> {
	const cpuBefore = await cpuSeconds(serverPids);
	const result = await autocannon({ url: baseUrl, requests, connections, duration: durationSeconds, timeout: 30 });
	const cpu = (await cpuSeconds(serverPids)) - cpuBefore;
	return {
		requestsPerSecond: result.requests.total / result.duration,
		p50Ms: result.latency.p50,
		p99Ms: result.latency.p99,
		cpuUsPerRequest: result.requests.total > 0 ? (cpu * 1e6) / result.requests.total : 0,
		// A row that completed no request in its time failed too, however quiet its errors.
		failures: result.non2xx + result.errors + (result.requests.total === 0 ? 1 : 0)
	};
}
