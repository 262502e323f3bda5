import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { GRPC_CODES } from "../../shared/errors.js";

/**
 * Requests Node's HTTP parser refuses before any route sees them (oversized headers, a
 * malformed request line) get the contract's Status body too, instead of Node's bare 400/431.
 */
export function answerClientErrors(server: unknown): void {
	if (!(server instanceof EventEmitter)) return;
	server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
		if (!socket.writable || (err as { bytesParsed?: number }).bytesParsed === undefined) {
			socket.destroy();
			return;
		}
		const message = err.code === "HPE_HEADER_OVERFLOW" ? "request headers are too large" : "malformed HTTP request";
		const body = JSON.stringify({ code: GRPC_CODES.INVALID_ARGUMENT.code, message, details: [] });
		socket.end(
			`HTTP/1.1 ${GRPC_CODES.INVALID_ARGUMENT.http} Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
		);
	});
}
