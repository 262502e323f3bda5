import { isAscii } from "node:buffer";
import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { invalidArgument } from "../../shared/errors.js";
import { decodeBase64Text } from "../../shared/proto-json.js";
import { bodyDecoderOf, contentEncodingOf } from "./content-encoding.js";
import { LARGE_BODY_BYTES } from "./body-limits.js";
import { JsonDepthGuard } from "./json-depth.js";
import { stringSpanAt } from "./json-string-span.js";
import type { ReusedBuffers } from "./reused-buffers.js";

const tooLarge = (limit: number) => invalidArgument(`request body is larger than the ${limit} bytes this operation takes`);

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Bodies from this size on are worth a scan for their bytes field before they are parsed. */
const BYTES_FIELD_SCAN_BYTES = 64 * 1024;

/**
 * Reads the body's bytes, decoded from its Content-Encoding, refusing it as soon as the decoded
 * bytes pass `limit` or nest too deeply: a small compressed body cannot make the gateway
 * inflate more than the operation takes (contract 19). A large plain body that fits one of
 * `buffers` is read into it (its length is known), and the caller gives it back once it is
 * parsed: a fresh buffer of megabytes per request counts towards V8's external memory
 * (reused-buffers.ts). A larger one is gathered as it arrives, never allocated ahead of its bytes.
 */
function readBytes(req: IncomingMessage, limit: number, buffers: ReusedBuffers | undefined): Promise<Buffer> {
	const decoder = bodyDecoderOf(req);
	const declared = Number(req.headers["content-length"]);
	// A plain body's length is known before it is read; a compressed one is bounded once inflated.
	if (decoder === undefined && declared > limit) throw tooLarge(limit);
	const source: Readable = decoder === undefined ? req : req.pipe(decoder);
	const guard = new JsonDepthGuard();
	const reused = buffers !== undefined && decoder === undefined && declared > LARGE_BODY_BYTES && declared <= buffers.size;
	const into = reused ? buffers.take(declared) : undefined;
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
			if (into !== undefined) buffers?.give(into);
			reject(err);
		};
		function onData(chunk: Buffer) {
			length += chunk.length;
			try {
				if (length > limit) throw tooLarge(limit);
				// The HTTP parser ends a body at its Content-Length: only a stream of another kind gets here.
				if (into !== undefined && length > into.length) throw invalidArgument("request body is longer than its Content-Length");
				guard.feed(chunk);
			} catch (err) {
				fail(err);
				return;
			}
			if (into === undefined) chunks.push(chunk);
			else chunk.copy(into, length - chunk.length);
		}
		function onEnd() {
			stop();
			resolve(into === undefined ? Buffer.concat(chunks, length) : into.subarray(0, length));
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

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Where a route's base64 bytes field is (keys from the top-level object), and what its decoded bytes go into. */
export interface BytesField {
	path: readonly string[];
	allocate?: (length: number) => Buffer;
}

/**
 * A large body whose bytes field (`field.path`) is plain base64:
 * the field decoded straight from the request's bytes, the rest of the body (the field's
 * text cut out of it) parsed as usual and the decoded bytes, a Buffer, set in its place. The
 * megabytes of text are neither parsed nor copied into the JavaScript heap (JSON.parse made
 * an old-generation string of them per chunk, which the garbage collector then had to mark
 * and sweep; issue 19). Undefined when the body is anything else (non-ASCII, the field
 * escaped, absent or not base64, malformed JSON): it is then parsed whole, which answers its errors.
 */
function parseAroundBytesField(bytes: Buffer, field: BytesField): Record<string, unknown> | undefined {
	const bytesAt = field.path;
	// The scan finds quotes and backslashes in UTF-8 as in ASCII; the field's bytes are checked
	// by their decoding (a byte outside base64's alphabet is refused), the rest's here.
	const span = stringSpanAt(bytes, bytesAt);
	if (span === undefined) return undefined;
	const restBytes = Buffer.concat([bytes.subarray(0, span.start), bytes.subarray(span.end)]);
	if (!isAscii(restBytes)) return undefined;
	const rest = restBytes.toString("latin1");
	let body: unknown;
	try {
		body = JSON.parse(rest);
	} catch {
		return undefined;
	}
	// The scan and the parser agree on where the field is, or the parser alone decides.
	let holder = body;
	for (const key of bytesAt.slice(0, -1)) holder = isObject(holder) ? holder[key] : undefined;
	const name = bytesAt[bytesAt.length - 1] as string;
	if (!isObject(holder) || holder[name] !== "") return undefined;
	const decoded = decodeBase64Text(bytes.subarray(span.start, span.end), field.allocate);
	if (decoded === undefined) return undefined;
	holder[name] = decoded;
	return body as Record<string, unknown>;
}

/**
 * Reads and parses the JSON body of at most `limit` bytes once decoded (contract 19): gzip,
 * deflate, br or identity, UTF-8, nested at most 64 levels; anything else, or more, is
 * INVALID_ARGUMENT. An absent or empty body reads as undefined. Every body is read as JSON
 * whatever its Content-Type: clients of the upstream API send JSON with no or other content
 * types, and nothing else is accepted on /api/v1. `bytesField`: where the route's base64 bytes
 * field is in the body, which a large body may carry decoded (parseAroundBytesField); `buffers`:
 * what a large body is read into (readBytes), given back once it is parsed.
 */
export async function readJsonBody(req: IncomingMessage, limit: number, bytesField?: BytesField, buffers?: ReusedBuffers): Promise<unknown> {
	let bytes: Buffer;
	try {
		bytes = await readBytes(req, limit, buffers);
	} catch (err) {
		await drain(req);
		throw err;
	}
	try {
		return parseBody(bytes, bytesField);
	} finally {
		// Parsing copied out whatever it kept: strings, and decoded bytes into buffers of their own.
		buffers?.give(bytes);
	}
}

function parseBody(bytes: Buffer, bytesField: BytesField | undefined): unknown {
	if (bytesField !== undefined && bytes.length >= BYTES_FIELD_SCAN_BYTES) {
		const body = parseAroundBytesField(bytes, bytesField);
		if (body !== undefined) return body;
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
