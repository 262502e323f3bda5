import type { IncomingMessage, ServerResponse } from "node:http";
import { resourceExhausted } from "../../shared/errors.js";
import type { RouteSpec } from "./route-spec.js";

const MiB = 1024 * 1024;

/** The request body an operation takes when its row in the route table names no other. */
export const DEFAULT_BODY_LIMIT_BYTES = 1 * MiB;

/** The largest request body of any operation (contract 14). */
export const MAX_BODY_LIMIT_BYTES = 64 * MiB;

/** Bodies above this size hold one of the gateway's large-body slots while their request is served. */
export const LARGE_BODY_BYTES = 1 * MiB;

/** Seconds a client refused for want of a slot is told to wait (Retry-After). */
export const LARGE_BODY_RETRY_AFTER_SECONDS = 2;

export function bodyLimitOf(spec: RouteSpec): number {
	return spec.maxBodyBytes ?? DEFAULT_BODY_LIMIT_BYTES;
}

/**
 * A body is held in memory several times over (raw bytes, the JSON text, decoded base64) until
 * its call has finished, so the gateway serves only so many large bodies at once: its memory
 * stays bounded however many clients upload together. A body of unknown length (chunked) counts
 * as large when the operation allows a large one.
 */
export class LargeBodySlots {
	private inUse = 0;

	constructor(
		private readonly max: number,
		private readonly report: (inUse: number) => void = () => undefined
	) {}

	/** Takes a slot for the request until its response closes; RESOURCE_EXHAUSTED when none is free. */
	take(spec: RouteSpec, req: IncomingMessage, res: ServerResponse): void {
		if (bodyLimitOf(spec) <= LARGE_BODY_BYTES) return;
		const declared = req.headers["content-length"];
		if (declared !== undefined && Number(declared) <= LARGE_BODY_BYTES) return;
		if (this.inUse >= this.max) {
			res.setHeader("Retry-After", String(LARGE_BODY_RETRY_AFTER_SECONDS));
			throw resourceExhausted(`the server is receiving ${this.max} large request bodies already, retry later`);
		}
		this.report(++this.inUse);
		res.once("close", () => this.report(--this.inUse));
	}
}
