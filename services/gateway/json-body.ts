import type { IncomingMessage, ServerResponse } from "node:http";
import bodyParser from "body-parser";

/** Larger bodies are refused with INVALID_ARGUMENT (contract 1.1). */
export const BODY_LIMIT_BYTES = 64 * 1024 * 1024;

// Every body is read as JSON whatever its Content-Type: clients of the upstream API send
// JSON with no or other content types, and nothing else is accepted on /api/v1.
const parser = bodyParser.json({ limit: BODY_LIMIT_BYTES, strict: true, type: () => true });

/** Reads and parses the JSON body; an absent or empty body reads as undefined. */
export function readJsonBody(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<unknown> {
	return new Promise((resolve, reject) => {
		parser(req, res, err => (err ? reject(err) : resolve(req.body)));
	});
}
