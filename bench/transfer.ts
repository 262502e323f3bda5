import { randomBytes } from "node:crypto";
import { memoryOf, resetPeakMemory } from "../test/support/processes.js";
import { streamedPatch } from "../test/support/streamed-patch.js";
import { cpuSeconds } from "./measure.js";

/**
 * Transfer rows (issue 19): one upload of `bytes` by each protocol, then a download of the
 * result through the file route, one at a time on loopback, each timed from its first request
 * to its last byte while the CPU time of the server processes is counted.
 */

const MiB = 2 ** 20;
const GiB = 2 ** 30;
/** The bytes a client sends over and over: made once, so that no client work grows with the size. */
const BLOCK = randomBytes(4 * MiB);

export interface TransferResult {
	name: string;
	bytes: number;
	seconds: number;
	mibPerSecond: number;
	cpuSecondsPerGiB: number;
}

export interface Target {
	baseUrl: string;
	token: string;
	pids: number[];
}

async function timed(name: string, bytes: number, target: Target, transfer: () => Promise<unknown>): Promise<TransferResult> {
	const cpuBefore = await cpuSeconds(target.pids);
	const started = performance.now();
	await transfer();
	const seconds = (performance.now() - started) / 1000;
	const cpu = (await cpuSeconds(target.pids)) - cpuBefore;
	return { name, bytes, seconds, mibPerSecond: bytes / MiB / seconds, cpuSecondsPerGiB: cpu / (bytes / GiB) };
}

async function call(target: Target, method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<Response> {
	const res = await fetch(`${target.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${target.token}`, ...headers }, ...(body === undefined ? {} : { body }) });
	if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
	return res;
}

/**
 * A chunk's JSON body, `{"uploadId":…,"offset":…,"content":"<base64>"}`, with `bytes` encoded
 * as a real client's chunk is, each time. The base64 text is put between the quotes as it is
 * (its alphabet needs no JSON escape), not through JSON.stringify, which took about 17 ms of CPU
 * per 4 MiB chunk against 1-3 ms for the encoding: the client cost more per GiB than the server.
 */
function chunkBody(uploadId: string, offset: number, bytes: Buffer): Buffer {
	const head = Buffer.from(`{"uploadId":${JSON.stringify(uploadId)},"offset":"${offset}","content":"`);
	const body = Buffer.allocUnsafe(head.length + Math.ceil(bytes.length / 3) * 4 + 2);
	head.copy(body);
	const end = head.length + body.write(bytes.toString("base64"), head.length, "latin1");
	return body.subarray(0, body.write('"}', end, "latin1") + end);
}

/** The attachment of a JSON chunked upload (contract 8.4): base64 chunks of `maxChunkSize` bytes. */
async function chunkedUpload(target: Target, bytes: number, filename: string): Promise<string> {
	const json = { "content-type": "application/json" };
	const open = (await (await call(target, "POST", "/api/v1/attachments:upload", json, JSON.stringify({ spec: { filename, type: "application/octet-stream", size: String(bytes) } }))).json()) as {
		uploadId: string;
		maxChunkSize: string;
	};
	const chunk = Math.min(Number(open.maxChunkSize), BLOCK.length);
	let answer: { attachment?: { name: string } } = {};
	for (let offset = 0; offset < bytes; offset += chunk) {
		const body = chunkBody(open.uploadId, offset, BLOCK.subarray(0, Math.min(chunk, bytes - offset)));
		answer = (await (await call(target, "POST", "/api/v1/attachments:upload", json, body)).json()) as typeof answer;
	}
	if (answer.attachment === undefined) throw new Error("the last chunk answered no attachment");
	return answer.attachment.name;
}

/** The attachment of a tus upload: creation, then the whole body in one streamed PATCH (tus-js-client's default). */
async function tusUpload(target: Target, bytes: number, filename: string): Promise<string> {
	const created = await call(target, "POST", "/api/v1/attachments:tus", { "tus-resumable": "1.0.0", "upload-length": String(bytes), "upload-metadata": `filename ${Buffer.from(filename).toString("base64")}` });
	const location = new URL(created.headers.get("location") as string, target.baseUrl);
	const answer = await streamedPatch(location, { authorization: `Bearer ${target.token}` }, bytes, BLOCK);
	if (answer.status !== 204 || answer.attachment === undefined) throw new Error(`tus PATCH answered ${answer.status} without an Attachment-Name`);
	return answer.attachment;
}

/** Reads `/file/{name}` to its end; its length must be `bytes`. */
async function download(target: Target, name: string, bytes: number): Promise<void> {
	const res = await call(target, "GET", `/file/${name}`, {});
	let received = 0;
	for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) received += piece.length;
	if (received !== bytes) throw new Error(`GET /file/${name} gave ${received} bytes, not ${bytes}`);
}

/** Lets `target` take uploads of `bytes` (STORAGE uploadSizeLimitMb; the token must be an instance ADMIN's). */
async function allowUploads(target: Target, bytes: number): Promise<void> {
	const mb = String(Math.ceil(bytes / MiB));
	await call(target, "PATCH", "/api/v1/instance/settings/STORAGE?updateMask=storage_setting.upload_size_limit_mb", { "content-type": "application/json" }, JSON.stringify({ storageSetting: { uploadSizeLimitMb: mb } }));
}

export interface UploadMemory {
	uploads: number;
	mibEach: number;
	/** The process's RSS before the uploads, and its peak while they ran. */
	beforeMiB: number;
	peakMiB: number;
}

/**
 * The peak RSS of `pid` (a gateway) while `uploads` tus uploads of `bytes` each run at once, each
 * in one streamed PATCH: what the gateway holds of bytes in flight (issue 19: ≤ 256 MiB for 8 of 30 MiB).
 */
export async function concurrentUploadMemory(target: Target, pid: number, uploads: number, bytes: number): Promise<UploadMemory> {
	await allowUploads(target, bytes);
	const locations: URL[] = [];
	for (let i = 0; i < uploads; i++) {
		const created = await call(target, "POST", "/api/v1/attachments:tus", { "tus-resumable": "1.0.0", "upload-length": String(bytes), "upload-metadata": `filename ${Buffer.from(`bench-many-${i}.bin`).toString("base64")}` });
		locations.push(new URL(created.headers.get("location") as string, target.baseUrl));
	}
	await resetPeakMemory(pid);
	const before = await memoryOf(pid);
	const answers = await Promise.all(locations.map(url => streamedPatch(url, { authorization: `Bearer ${target.token}` }, bytes, BLOCK)));
	const after = await memoryOf(pid);
	for (const answer of answers) {
		if (answer.status !== 204 || answer.attachment === undefined) throw new Error(`a concurrent tus PATCH answered ${answer.status} without an Attachment-Name`);
		await call(target, "DELETE", `/api/v1/${answer.attachment}`, {});
	}
	return { uploads, mibEach: bytes / MiB, beforeMiB: before.rssMiB, peakMiB: after.peakMiB };
}

/** The rows of one target, `label` naming it ("embedded", "cluster"). */
export async function transferRows(label: string, target: Target, bytes: number): Promise<TransferResult[]> {
	await allowUploads(target, bytes);
	const results: TransferResult[] = [];
	let chunked = "";
	results.push(await timed(`JSON chunked upload (${label})`, bytes, target, async () => (chunked = await chunkedUpload(target, bytes, "bench-chunked.bin"))));
	let tus = "";
	results.push(await timed(`tus upload, one PATCH (${label})`, bytes, target, async () => (tus = await tusUpload(target, bytes, "bench-tus.bin"))));
	results.push(await timed(`file-route download (${label})`, bytes, target, () => download(target, tus, bytes)));
	for (const name of [chunked, tus]) await call(target, "DELETE", `/api/v1/${name}`, {});
	return results;
}
