import { startTcpProxy } from "./tcp-proxy.js";

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
	let done = false;
	const proxy = await startTcpProxy(target, (client, upstream) => {
		let watching = false;
		let cutHere = false;
		let passed = 0;
		client.on("data", (data: Buffer) => {
			// Until the write below has gone out, the client keeps sending: none of it reaches the
			// server (a server that reads slowly delays that write by as much as it holds back).
			if (cutHere) return;
			if (!done && !watching && data.subarray(0, method.length + 1).toString("latin1") === `${method} `) watching = true;
			if (watching && !done) {
				const room = cutAfter - passed;
				if (data.length >= room) {
					done = true;
					cutHere = true;
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
	});
	return { url: proxy.url, cut: () => done, close: proxy.close };
}
