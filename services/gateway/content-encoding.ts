import type { IncomingMessage } from "node:http";
import type { Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { invalidArgument } from "../../shared/errors.js";

/** The `Content-Encoding`s a request body may come in (contract 19), each with its decoder. */
const DECODERS: Readonly<Record<string, () => Transform>> = {
	gzip: createGunzip,
	"x-gzip": createGunzip,
	deflate: createInflate,
	br: createBrotliDecompress
};

/** The request's content coding, lower-cased; "identity" when it names none. */
export function contentEncodingOf(req: IncomingMessage): string {
	const header = req.headers["content-encoding"]?.trim().toLowerCase();
	return header === undefined || header === "" ? "identity" : header;
}

/** A decoder for the request's body, or undefined for plain bytes; any other coding is INVALID_ARGUMENT. */
export function bodyDecoderOf(req: IncomingMessage): Transform | undefined {
	const encoding = contentEncodingOf(req);
	if (encoding === "identity") return undefined;
	const decoder = Object.hasOwn(DECODERS, encoding) ? DECODERS[encoding] : undefined;
	if (decoder === undefined) throw invalidArgument(`unsupported Content-Encoding "${encoding}": gzip, deflate, br and identity are accepted`);
	return decoder();
}
