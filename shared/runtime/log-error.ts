/**
 * The fields of a log line about an error: pino's `err` serializer writes its name, message,
 * stack, cause chain and own properties (a Moleculer error's type, code, nodeID and data).
 * The error goes first, as an object: a second argument after the message is a format
 * argument to pino, and was dropped.
 */
export function errorLog(err: unknown, requestId?: string): Record<string, unknown> {
	return requestId === undefined ? { err } : { err, requestId };
}
