import net, { type AddressInfo, type Socket } from "node:net";

/** A loopback TCP proxy: `connect` wires each client connection to its own connection to the target. */
export interface TcpProxy {
	url: string;
	port: number;
	close(): Promise<void>;
}

/**
 * Listens on a free loopback port and, for each client, opens a connection to `target` and hands
 * both to `wire`, which decides what passes. Either side failing or closing ends both.
 */
export async function startTcpProxy(target: string, wire: (client: Socket, upstream: Socket) => void): Promise<TcpProxy> {
	const { hostname, port } = new URL(target);
	const sockets = new Set<Socket>();
	const server = net.createServer(client => {
		const upstream = net.connect(Number(port), hostname);
		sockets.add(client).add(upstream);
		wire(client, upstream);
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
		close: () =>
			new Promise(resolve => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			})
	};
}
