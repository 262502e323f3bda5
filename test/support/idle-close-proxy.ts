import net, { type AddressInfo, type Socket } from "node:net";

/**
 * A loopback TCP proxy in front of an HTTP server that serves one request per connection and
 * resets the connection when a client sends another request on it: what a client whose
 * process was stalled meets when it reuses a kept-alive connection the server closed as idle
 * meanwhile (the server's close not yet read, so the request goes out and is answered by a
 * reset). Deterministic, unlike the real race.
 */
export interface IdleCloseProxy {
	url: string;
	port: number;
	/** Connections reset on a second request. */
	resets(): number;
	close(): Promise<void>;
}

export async function startIdleCloseProxy(target: string): Promise<IdleCloseProxy> {
	const { hostname, port } = new URL(target);
	const sockets = new Set<Socket>();
	let resets = 0;
	const server = net.createServer(client => {
		const upstream = net.connect(Number(port), hostname);
		sockets.add(client).add(upstream);
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
		const end = () => {
			client.destroy();
			upstream.destroy();
		};
		client.on("error", end).on("close", end);
		upstream.on("error", end).on("close", end);
	});
	await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
	const { port: proxyPort } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${proxyPort}`,
		port: proxyPort,
		resets: () => resets,
		close: () =>
			new Promise(resolve => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			})
	};
}
