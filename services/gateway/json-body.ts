import type { IncomingMessage, ServerResponse } from "node:http";
import bodyParser from "body-parser";
import { invalidArgument } from "../../shared/errors.js";

// Every body is read as JSON whatever its Content-Type: clients of the upstream API send
// JSON with no or other content types, and nothing else is accepted on /api/v1.
const parsers = new Map<number, ReturnType<typeof bodyParser.json>>();
const parserFor = (limit: number) => {
	let parser = parsers.get(limit);
	if (parser === undefined) parsers.set(limit, (parser = bodyParser.json({ limit, strict: true, type: () => true })));
	return parser;
};

/**
 * Reads and parses the JSON body of at most `limit` bytes (a larger one is INVALID_ARGUMENT,
 * refused from its Content-Length before it is read); an absent or empty body reads as undefined.
 */
export function readJsonBody(req: IncomingMessage & { body?: unknown }, res: ServerResponse, limit: number): Promise<unknown> {
	return new Promise((resolve, reject) => {
		parserFor(limit)(req, res, err => {
			if (!err) resolve(req.body);
			else if ((err as { type?: unknown }).type === "entity.too.large") reject(invalidArgument(`request body is larger than the ${limit} bytes this operation takes`));
			else reject(err);
		});
	});
}
