import net, { type AddressInfo, type Socket } from "node:net";

/**
 * A loopback TCP proxy that cuts the first connection carrying a request of `method` once it
 * has passed `cutAfter` bytes of it on to the server: the client sees its request fail
 * mid-body and the server sees the connection drop, as on a lost network.
 */
export interface CutProxy {
	url: string;
	/** Whether the cut happened. */
	cut(): boolean;
	close(): Promise<void>;
}

export async function startCutProxy(target: string, method: string, cutAfter: number): Promise<CutProxy> {
	const { hostname, port } = new URL(target);
	const sockets = new Set<Socket>();
	let done = false;
	const server = net.createServer(client => {
		const upstream = net.connect(Number(port), hostname);
		sockets.add(client).add(upstream);
		let watching = false;
		let passed = 0;
		client.on("data", (data: Buffer) => {
			if (!done && !watching && data.subarray(0, method.length + 1).toString("latin1") === `${method} `) watching = true;
			if (watching && !done) {
				const room = cutAfter - passed;
				if (data.length >= room) {
					done = true;
					upstream.write(data.subarray(0, room), () => {
						upstream.destroy();
						client.destroy();
					});
					return;
				}
				passed += data.length;
			}
			upstream.write(data);
		});
		upstream.pipe(client);
		const end = () => {
			client.destroy();
			upstream.destroy();
		};
		client.on("error", end).on("close", end);
		upstream.on("error", end).on("close", end);
	});
	await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		cut: () => done,
		close: () =>
			new Promise(resolve => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			})
	};
}
