import { isAscii } from "node:buffer";
import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { invalidArgument } from "../../shared/errors.js";
import { bodyDecoderOf, contentEncodingOf } from "./content-encoding.js";
import { JsonDepthGuard } from "./json-depth.js";

const tooLarge = (limit: number) => invalidArgument(`request body is larger than the ${limit} bytes this operation takes`);

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads the body's bytes, decoded from its Content-Encoding, refusing it as soon as the decoded
 * bytes pass `limit` or nest too deeply: a small compressed body cannot make the gateway
 * inflate more than the operation takes (contract 19).
 */
function readBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
	const decoder = bodyDecoderOf(req);
	const declared = Number(req.headers["content-length"]);
	// A plain body's length is known before it is read; a compressed one is bounded once inflated.
	if (decoder === undefined && declared > limit) throw tooLarge(limit);
	const source: Readable = decoder === undefined ? req : req.pipe(decoder);
	const guard = new JsonDepthGuard();
	const chunks: Buffer[] = [];
	let length = 0;
	return new Promise((resolve, reject) => {
		const stop = () => {
			source.off("data", onData);
			source.off("end", onEnd);
			req.off("error", onRequestError);
			req.off("close", onRequestClose);
			if (decoder !== undefined) {
				req.unpipe(decoder);
				decoder.destroy();
			}
		};
		const fail = (err: unknown) => {
			stop();
			reject(err);
		};
		function onData(chunk: Buffer) {
			length += chunk.length;
			try {
				if (length > limit) throw tooLarge(limit);
				guard.feed(chunk);
			} catch (err) {
				fail(err);
				return;
			}
			chunks.push(chunk);
		}
		function onEnd() {
			stop();
			resolve(Buffer.concat(chunks, length));
		}
		const onDecoderError = () => fail(invalidArgument(`request body is not valid ${contentEncodingOf(req)} data`));
		// The client went away mid-body: there is nobody to answer, but the call must not wait for ever.
		const onRequestError = () => fail(invalidArgument("request body could not be read"));
		const onRequestClose = () => {
			if (!req.readableEnded) onRequestError();
		};
		source.on("data", onData);
		source.once("end", onEnd);
		// Kept after the body is done: a decoder's late error must not go unhandled.
		if (decoder !== undefined) source.on("error", onDecoderError);
		req.once("error", onRequestError);
		req.once("close", onRequestClose);
	});
}

/**
 * The rest of a refused body is read and dropped before the answer, so that a client still
 * sending sees the answer rather than a reset connection; nothing of it is kept.
 */
async function drain(req: IncomingMessage): Promise<void> {
	if (req.readableEnded || req.destroyed) return;
	req.resume();
	// A client that goes away meanwhile cannot be answered anyway; the refusal stands.
	await finished(req).catch(() => undefined);
}

/**
 * Reads and parses the JSON body of at most `limit` bytes once decoded (contract 19): gzip,
 * deflate, br or identity, UTF-8, nested at most 64 levels; anything else, or more, is
 * INVALID_ARGUMENT. An absent or empty body reads as undefined. Every body is read as JSON
 * whatever its Content-Type: clients of the upstream API send JSON with no or other content
 * types, and nothing else is accepted on /api/v1.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
	let bytes: Buffer;
	try {
		bytes = await readBytes(req, limit);
	} catch (err) {
		await drain(req);
		throw err;
	}
	let text: string;
	try {
		// ASCII (every base64 upload chunk) is UTF-8 as it is: copied into a string at half the cost of decoding it (issue 19).
		text = isAscii(bytes) ? bytes.toString("latin1") : utf8.decode(bytes);
	} catch {
		throw invalidArgument("request body is not valid UTF-8");
	}
	if (text === "") return undefined;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		throw invalidArgument("invalid JSON body");
	}
}
