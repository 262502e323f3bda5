import type { IncomingMessage, ServerResponse } from "node:http";
import { resourceExhausted } from "../../shared/errors.js";
import { contentEncodingOf } from "./content-encoding.js";

const KiB = 1024;
const MiB = 1024 * KiB;

/** The request body an operation takes when its row in the route table names no other (contract 19). */
export const DEFAULT_BODY_LIMIT_BYTES = 256 * KiB;

/** The largest request body of any operation (contract 1.1, 14): larger files take the chunked upload. */
export const MAX_BODY_LIMIT_BYTES = 64 * MiB;

/** Room for the other fields of a body around its content (contract 19). */
export const BODY_ENVELOPE_BYTES = 64 * KiB;

/** Bodies above this size hold one of the gateway's large-body slots while their request is served. */
export const LARGE_BODY_BYTES = 1 * MiB;

/** Seconds a client refused for want of a slot is told to wait (Retry-After). */
export const LARGE_BODY_RETRY_AFTER_SECONDS = 2;

/**
 * How large a request body an operation takes, as its row in the route table declares it
 * (contract 19). Limits that follow an instance setting are worked out per request:
 * - `bytes`: a fixed size;
 * - `base64`: content of at most `decodedBytes` sent as base64, plus the envelope;
 * - `memoContent`: the MEMO_RELATED content limit plus the envelope;
 * - `attachmentContent`: the STORAGE upload limit sent as base64, plus the envelope.
 */
export type BodyLimit = { bytes: number } | { base64: number } | { setting: "memoContent" | "attachmentContent" };

/** Memo bodies: the content and room for the other fields. */
export const MEMO_BODY: BodyLimit = { setting: "memoContent" };

/** Bodies with inline attachment content (CreateAttachment). */
export const ATTACHMENT_BODY: BodyLimit = { setting: "attachmentContent" };

/** User bodies, which may hold an avatar as a data URI of up to 2 MiB. */
export const USER_BODY: BodyLimit = { bytes: 3 * MiB };

/** What the instance settings say the limits that follow them are, in bytes. */
export interface SettingLimits {
	memoContentBytes(): Promise<number>;
	attachmentBytes(): Promise<number>;
}

/** Base64 text of `decodedBytes` bytes and the JSON around it. */
export function base64BodyBytes(decodedBytes: number): number {
	return Math.ceil(decodedBytes / 3) * 4 + BODY_ENVELOPE_BYTES;
}

/** The limit in bytes of a row's body: never above MAX_BODY_LIMIT_BYTES, whatever a setting says. */
export async function bodyLimitOf(limit: BodyLimit | undefined, settings: SettingLimits): Promise<number> {
	let bytes: number;
	if (limit === undefined) bytes = DEFAULT_BODY_LIMIT_BYTES;
	else if ("bytes" in limit) bytes = limit.bytes;
	else if ("base64" in limit) bytes = base64BodyBytes(limit.base64);
	else if (limit.setting === "memoContent") bytes = (await settings.memoContentBytes()) + BODY_ENVELOPE_BYTES;
	else bytes = base64BodyBytes(await settings.attachmentBytes());
	return Math.min(bytes, MAX_BODY_LIMIT_BYTES);
}

/**
 * A body is held in memory several times over (raw bytes, the JSON text, decoded base64) until
 * its call has finished, so the gateway serves only so many large bodies at once: its memory
 * stays bounded however many clients upload together. A body of unknown length (chunked, or
 * compressed) counts as large when the operation allows a large one.
 */
export class LargeBodySlots {
	private inUse = 0;

	constructor(
		private readonly max: number,
		private readonly report: (inUse: number) => void = () => undefined
	) {}

	/** Takes a slot for the request until its response closes; RESOURCE_EXHAUSTED when none is free. */
	take(limit: number, req: IncomingMessage, res: ServerResponse): void {
		if (limit <= LARGE_BODY_BYTES) return;
		const declared = req.headers["content-length"];
		if (declared !== undefined && contentEncodingOf(req) === "identity" && Number(declared) <= LARGE_BODY_BYTES) return;
		if (this.inUse >= this.max) {
			res.setHeader("Retry-After", String(LARGE_BODY_RETRY_AFTER_SECONDS));
			throw resourceExhausted(`the server is receiving ${this.max} large request bodies already, retry later`);
		}
		this.report(++this.inUse);
		res.once("close", () => this.report(--this.inUse));
	}
}
