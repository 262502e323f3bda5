import { startTcpProxy, type TcpProxy } from "./tcp-proxy.js";

/**
 * A loopback TCP proxy in front of an HTTP server that serves one request per connection and
 * resets the connection when a client sends another request on it: what a client whose
 * process was stalled meets when it reuses a kept-alive connection the server closed as idle
 * meanwhile (the server's close not yet read, so the request goes out and is answered by a
 * reset). Deterministic, unlike the real race.
 */
export interface IdleCloseProxy extends TcpProxy {
	/** Connections reset on a second request. */
	resets(): number;
}

export async function startIdleCloseProxy(target: string): Promise<IdleCloseProxy> {
	let resets = 0;
	const proxy = await startTcpProxy(target, (client, upstream) => {
		// Once the server has answered, anything more from the client is its next request.
		let answered = false;
		upstream.on("data", (data: Buffer) => {
			answered = true;
			client.write(data);
		});
		client.on("data", (data: Buffer) => {
			if (!answered) {
				upstream.write(data);
				return;
			}
			resets++;
			upstream.destroy();
			client.resetAndDestroy();
		});
	});
	return { ...proxy, resets: () => resets };
}
