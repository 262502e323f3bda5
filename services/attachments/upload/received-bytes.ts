import { PassThrough, type Readable } from "node:stream";
import { invalidArgument } from "../../../shared/errors.js";

/**
 * The bytes of a tus PATCH as far as they arrived. A client whose connection drops keeps what
 * reached us (tus 1.0: the server SHOULD store as much of the request as it received), so its
 * resume starts there instead of at the request's first byte: the body failing or closing early
 * ends this stream rather than failing it. More than `max` bytes fails it with
 * INVALID_ARGUMENT, and nothing of the request is kept.
 */
export function receivedBytes(body: Readable, max: number): Readable {
	const out = new PassThrough();
	let received = 0;
	const finish = () => {
		if (!out.writableEnded && !out.destroyed) out.end();
	};
	body.on("data", (chunk: Buffer) => {
		received += chunk.length;
		if (received > max) {
			body.pause();
			out.destroy(invalidArgument(`the request carries more than the ${max} bytes left of the upload`));
			return;
		}
		if (!out.write(chunk)) body.pause();
	});
	out.on("drain", () => body.resume());
	body.once("end", finish);
	body.once("close", finish);
	body.once("error", finish);
	return out;
}
