import http, { type ClientRequest } from "node:http";
import https from "node:https";
import type { Duplex } from "node:stream";
import { StorageError } from "../store/document-store.js";

/**
 * Failures of requests that went out on a kept-alive connection the server had already closed.
 * A server closes a connection idle past its keep-alive time (5 s for Node's, s3rver's); a
 * client process that was not running at that moment (a loaded machine: issue 20 saw a chunk's
 * put fail so, answered as INTERNAL) has not read the close yet when it takes the connection
 * for its next request, which the server then answers with a reset. Such a request never
 * reached the server's handler (Node's documentation of `request.reusedSocket`).
 */
const staleConnectionFailures = new WeakSet<object>();
const STALE_CONNECTION_CODES: ReadonlySet<unknown> = new Set(["ECONNRESET", "EPIPE"]);

function watchReusedConnection(request: ClientRequest): void {
	request.once("error", err => {
		if (STALE_CONNECTION_CODES.has((err as NodeJS.ErrnoException).code)) staleConnectionFailures.add(err);
	});
}

/**
 * The S3 client's connections: kept alive as by Node's global agent, each request on a reused
 * one watched for the failure above. The listener goes on before the client's own (the agent
 * hands a free connection over while the request is being made), so the mark is there when the
 * client rejects with the error.
 */
export function s3Agent(useSSL: boolean): http.Agent {
	const Base: typeof http.Agent = useSSL ? https.Agent : http.Agent;
	return new (class extends Base {
		override reuseSocket(socket: Duplex, request: ClientRequest): void {
			watchReusedConnection(request);
			super.reuseSocket(socket, request);
		}
	})({ keepAlive: true, scheduling: "lifo", timeout: 5000 });
}

/** The server refused, dropped or cannot be routed to: S3 is out of reach for now. */
const UNREACHABLE_CODES: ReadonlySet<unknown> = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/**
 * `request` (one S3 operation, safe to repeat), sent again while it fails on a closed kept-alive
 * connection. Each such failure discards that connection, and a new one is never stale, so this
 * ends once the stale connections are spent. A connection that cannot be made or breaks
 * otherwise is S3 out of reach: StorageError ENOTCONN, which the gateway answers UNAVAILABLE
 * (retry later) as it does a document store's, not INTERNAL. Any other failure is the caller's.
 */
export async function s3Request<T>(request: () => Promise<T>): Promise<T> {
	for (;;) {
		try {
			return await request();
		} catch (err) {
			if (typeof err !== "object" || err === null) throw err;
			if (staleConnectionFailures.has(err)) continue;
			const code = (err as NodeJS.ErrnoException).code;
			if (UNREACHABLE_CODES.has(code)) throw new StorageError("ENOTCONN", `S3 is unreachable (${String(code)})`, { cause: err });
			throw err;
		}
	}
}
