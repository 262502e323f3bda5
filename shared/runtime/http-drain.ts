import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import type { Shutdown } from "./shutdown.js";

/**
 * Drains an HTTP server at shutdown. Node's `close()` stops accepting and closes idle
 * connections, but then waits for every busy one, and a client that keeps sending requests on
 * a keep-alive connection keeps it busy for ever. So from the start of shutdown: responses in
 * flight and new requests on open connections go out with `Connection: close`, each connection
 * is closed as soon as it falls idle, new requests get `refuse` (the gateway's 503) when one is
 * given, and at the deadline every connection is closed, whatever its state.
 */
export function drainOnShutdown(server: Server, shutdown: Shutdown, refuse?: (req: IncomingMessage, res: ServerResponse) => boolean): void {
	const inFlight = new Set<ServerResponse>();
	let draining = false;
	const closeIdle = () => setImmediate(() => server.closeIdleConnections());

	if (refuse) {
		const listeners = server.listeners("request") as RequestListener[];
		server.removeAllListeners("request");
		server.on("request", (req: IncomingMessage, res: ServerResponse) => {
			if (draining && refuse(req, res)) return;
			for (const listener of listeners) listener.call(server, req, res);
		});
	}
	server.prependListener("request", (_req: IncomingMessage, res: ServerResponse) => {
		if (draining) {
			res.shouldKeepAlive = false;
			res.once("finish", closeIdle);
			return;
		}
		inFlight.add(res);
		res.once("close", () => inFlight.delete(res));
	});

	shutdown.register(
		() =>
			new Promise<void>(resolve => {
				draining = true;
				for (const res of inFlight) {
					if (!res.headersSent) res.shouldKeepAlive = false;
					res.once("finish", closeIdle);
				}
				if (!server.listening) return resolve();
				server.close(() => resolve());
			}),
		() => server.closeAllConnections()
	);
}
