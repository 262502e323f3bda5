import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Shutdown } from "./shutdown.js";

/**
 * Node's own link from a connection to the response it is sending (set when the response gets
 * the socket, cleared once it has finished): undocumented, but what Node's server and its
 * `closeIdleConnections` rest on since its first versions.
 */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * Drains an HTTP server at shutdown. Node's `close()` stops accepting and closes idle
 * connections, but then waits for every busy one, and a client that keeps sending requests on
 * a keep-alive connection keeps it busy for ever. So from the start of shutdown: responses in
 * flight and new requests on open connections go out with `Connection: close`, each connection
 * is closed as soon as it falls idle, new requests get `refuse` (the gateway's 503) when one is
 * given, and at the deadline every connection is closed, whatever its state.
 * Connections are tracked, not requests: a `close` listener and two set operations per request
 * cost more than one per connection, which carries many requests.
 */
export function drainOnShutdown(server: Server, shutdown: Shutdown, refuse?: (req: IncomingMessage, res: ServerResponse) => boolean): void {
	const connections = new Set<HttpSocket>();
	let draining = false;
	const closeIdle = () => setImmediate(() => server.closeIdleConnections());
	const closeWhenAnswered = (res: ServerResponse) => {
		if (!res.headersSent) res.shouldKeepAlive = false;
		res.once("finish", closeIdle);
	};

	server.on("connection", (socket: HttpSocket) => {
		connections.add(socket);
		socket.once("close", () => connections.delete(socket));
	});
	const listeners = server.listeners("request") as RequestListener[];
	server.removeAllListeners("request");
	server.on("request", (req: IncomingMessage, res: ServerResponse) => {
		if (draining) {
			closeWhenAnswered(res);
			if (refuse?.(req, res)) return;
		}
		for (const listener of listeners) listener.call(server, req, res);
	});

	shutdown.register(
		() =>
			new Promise<void>(resolve => {
				draining = true;
				for (const socket of connections) {
					const res = socket._httpMessage;
					if (res) closeWhenAnswered(res);
				}
				if (!server.listening) return resolve();
				server.close(() => resolve());
			}),
		() => server.closeAllConnections()
	);
}
