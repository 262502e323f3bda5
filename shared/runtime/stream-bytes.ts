import type { Readable } from "node:stream";
import { internal } from "../errors.js";

/**
 * Reads a call stream of known length into one Buffer. A stream handed over in-process is a
 * single chunk and is returned as it is (no copy); chunks that crossed the transporter are
 * joined once.
 */
export async function collectBytes(stream: Readable, length: number): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let total = 0;
	for await (const chunk of stream) {
		const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
		total += bytes.length;
		if (total > length) throw internal("request bytes longer than announced");
		chunks.push(bytes);
	}
	if (total !== length) throw internal("request bytes cut short");
	return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
}
