import type { IncomingMessage, Server, ServerResponse } from "node:http";

/**
 * Every response is `nosniff`, and not cached unless its route says otherwise (contract 19:
 * JSON answers carry both). Set before routing, so errors from any layer carry them too; the
 * file, avatar and API-reference routes set their own `Cache-Control` over this default.
 */
export function defaultResponseHeaders(server: Server): void {
	server.prependListener("request", (_req: IncomingMessage, res: ServerResponse) => {
		res.setHeader("X-Content-Type-Options", "nosniff");
		res.setHeader("Cache-Control", "no-store");
	});
}
