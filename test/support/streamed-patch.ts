import { once } from "node:events";
import { request } from "node:http";
import type { IncomingMessage } from "node:http";

export interface PatchAnswer {
	status: number | undefined;
	/** The `Attachment-Name` header of the answer (tus: the attachment a finished upload became). */
	attachment: string | undefined;
}

/**
 * One tus PATCH at offset 0 carrying `bytes` bytes: `block` sent over and over with back-pressure
 * (no body of the full size is ever made), its answer read to the end.
 */
export async function streamedPatch(url: URL, headers: Record<string, string>, bytes: number, block: Buffer): Promise<PatchAnswer> {
	const req = request(url, {
		method: "PATCH",
		headers: { ...headers, "tus-resumable": "1.0.0", "content-type": "application/offset+octet-stream", "upload-offset": "0", "content-length": String(bytes) }
	});
	const answered = once(req, "response") as Promise<[IncomingMessage]>;
	for (let offset = 0; offset < bytes; offset += block.length) {
		if (!req.write(block.subarray(0, Math.min(block.length, bytes - offset)))) await Promise.race([once(req, "drain"), answered]);
	}
	req.end();
	const [res] = await answered;
	res.resume();
	await once(res, "end");
	const name = res.headers["attachment-name"];
	return { status: res.statusCode, attachment: typeof name === "string" ? name : undefined };
}
