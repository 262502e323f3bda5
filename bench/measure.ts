import autocannon, { type Request } from "autocannon";

export interface Measured {
	requestsPerSecond: number;
	p50Ms: number;
	p99Ms: number;
	/** Responses other than 2xx, connection errors and timeouts: any is a failed row. */
	failures: number;
}

/** One autocannon run against loopback: `connections` clients cycling through `requests`. */
export async function measure(baseUrl: string, requests: Request[], connections: number, durationSeconds: number): Promise<Measured> {
	const result = await autocannon({ url: baseUrl, requests, connections, duration: durationSeconds, timeout: 30 });
	return {
		requestsPerSecond: result.requests.total / result.duration,
		p50Ms: result.latency.p50,
		p99Ms: result.latency.p99,
		failures: result.non2xx + result.errors
	};
}
