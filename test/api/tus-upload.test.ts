import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startCutProxy } from "../support/cut-proxy.js";
import { usePopulatedApp } from "../support/populated-app.js";
import { digestOfBody, patternBytes, tusUpload, writePatternFile } from "../support/tus-client.js";
import type { Session } from "../support/users.js";

/** tus 1.0 uploads (core, creation, creation-with-upload, expiration, termination) on the embedded app, with the stock tus-js-client. */

const { app, api, users: [alice, bob] } = usePopulatedApp(2);
const MiB = 1024 * 1024;
let now = Date.now();
let dir: string;

beforeAll(async () => {
	dir = await mkdtemp(path.join(os.tmpdir(), "memos-tus-"));
	const service = app().node.broker.getLocalService("attachments") as unknown as { clock: () => number };
	service.clock = () => now;
});

afterAll(async () => {
	await rm(dir, { recursive: true, force: true });
});

const endpoint = () => `${app().baseUrl}/api/v1/attachments:tus`;
const b64 = (text: string) => Buffer.from(text).toString("base64");

function tus(method: string, url: string, as: Session | null, headers: Record<string, string> = {}, body?: Buffer) {
	return fetch(url, {
		method,
		headers: { "Tus-Resumable": "1.0.0", ...(as ? { Authorization: `Bearer ${as.accessToken}` } : {}), ...headers },
		...(body === undefined ? {} : { body })
	});
}

async function create(as: Session, length: number, metadata: string): Promise<string> {
	const res = await tus("POST", endpoint(), as, { "Upload-Length": String(length), "Upload-Metadata": metadata });
	expect({ status: res.status, text: res.status === 201 ? "" : await res.text() }).toEqual({ status: 201, text: "" });
	return new URL(res.headers.get("location") as string, app().baseUrl).href;
}

/** The SHA-256 and size of a file's bytes, once checked against its ETag (the hash kept as the chunks arrived). */
async function sha256Of(name: string, as: Session): Promise<{ sha: string; size: number }> {
	const res = await fetch(`${app().baseUrl}/file/${name}`, { headers: { Authorization: `Bearer ${as.accessToken}` } });
	expect(res.status).toBe(200);
	const etag = res.headers.get("etag");
	const digest = await digestOfBody(res.body);
	expect(etag).toBe(`"${digest.sha}"`);
	return digest;
}

test("tus-js-client uploads a file in one PATCH: it becomes an attachment of the memo, typed from its name, byte-identical", async () => {
	const memo = await api.create(alice(), { content: "with a video" });
	const file = path.join(dir, "clip.mp4");
	const sha = await writePatternFile(file, 5 * MiB + 123);
	const patches: string[] = [];
	const result = await tusUpload({
		endpoint: endpoint(),
		accessToken: alice().accessToken,
		path: file,
		metadata: { filename: "clip.mp4", memo: memo.body.name, attachmentId: "tus-clip" },
		onRequest: req => {
			if (req.getMethod() === "PATCH") patches.push(req.getHeader("Upload-Offset") as string);
		}
	});
	expect(patches).toEqual(["0"]);
	expect(result.url).toMatch(/\/api\/v1\/attachments:tus\/[A-Za-z0-9]{22}\.[A-Za-z0-9_-]+$/);
	expect(result.attachment).toBe("attachments/tus-clip");
	const got = await api.request("GET", "/attachments/tus-clip", { as: alice() });
	expect(got.body).toMatchObject({ name: "attachments/tus-clip", filename: "clip.mp4", type: "video/mp4", size: String(5 * MiB + 123), memo: memo.body.name });
	expect(await sha256Of("attachments/tus-clip", alice())).toEqual({ sha, size: 5 * MiB + 123 });
	const linked = await api.get(alice(), memo.body.name);
	expect((linked.body.attachments as { name: string }[]).map(a => a.name)).toEqual(["attachments/tus-clip"]);
});

test("in 1 MiB PATCHes with the first one sent along with the creation; no type to derive: application/octet-stream", async () => {
	const file = path.join(dir, "noext");
	// No extension, no type given and no signature file-type knows: the default type.
	const sha = await writePatternFile(file, 3 * MiB + 5);
	const patches: string[] = [];
	const result = await tusUpload({
		endpoint: endpoint(),
		accessToken: alice().accessToken,
		path: file,
		metadata: { filename: "noext" },
		chunkSize: MiB,
		uploadDataDuringCreation: true,
		onRequest: req => {
			if (req.getMethod() === "PATCH") patches.push(req.getHeader("Upload-Offset") as string);
		}
	});
	expect(patches).toEqual([String(MiB), String(2 * MiB), String(3 * MiB)]);
	const name = result.attachment as string;
	expect(name).toMatch(/^attachments\/[A-Za-z0-9]{22}$/);
	const got = await api.request("GET", `/${name}`, { as: alice() });
	expect(got.body).toMatchObject({ filename: "noext", type: "application/octet-stream", size: String(3 * MiB + 5) });
	expect(await sha256Of(name, alice())).toEqual({ sha, size: 3 * MiB + 5 });
});

test("a PATCH cut mid-body keeps the bytes that arrived; the client resumes from the offset HEAD reports", async () => {
	const size = 8 * MiB;
	const file = path.join(dir, "cut.bin");
	const sha = await writePatternFile(file, size);
	const proxy = await startCutProxy(app().baseUrl, "PATCH", 3 * MiB);
	try {
		const requests: string[] = [];
		const result = await tusUpload({
			endpoint: `${proxy.url}/api/v1/attachments:tus`,
			accessToken: alice().accessToken,
			path: file,
			metadata: { filename: "cut.bin", attachmentId: "tus-cut" },
			onRequest: req => requests.push(`${req.getMethod()} ${req.getHeader("Upload-Offset") ?? ""}`.trim())
		});
		expect(proxy.cut()).toBe(true);
		expect(result.attachment).toBe("attachments/tus-cut");
		// POST, the PATCH that was cut, then HEAD (perhaps more than once) and the PATCH of the rest.
		expect(requests[0]).toBe("POST");
		expect(requests[1]).toBe("PATCH 0");
		expect(requests).toContain("HEAD");
		const resumed = requests.filter(line => line.startsWith("PATCH ")).map(line => Number(line.slice(6)));
		const last = resumed[resumed.length - 1] as number;
		expect(last).toBeGreaterThan(0);
		expect(last).toBeLessThanOrEqual(3 * MiB);
	} finally {
		await proxy.close();
	}
	expect(await sha256Of("attachments/tus-cut", alice())).toEqual({ sha, size });
});

describe("the protocol by hand", () => {
	test("creation answers Location, Upload-Offset and Upload-Expires; HEAD reports the state; PATCH appends; a wrong offset is 409", async () => {
		const url = await create(alice(), 10, `filename ${b64("ten.txt")}`);
		const head = await tus("HEAD", url, alice());
		expect(head.status).toBe(200);
		expect(Object.fromEntries(["upload-offset", "upload-length", "cache-control", "tus-resumable"].map(h => [h, head.headers.get(h)]))).toEqual({
			"upload-offset": "0",
			"upload-length": "10",
			"cache-control": "no-store",
			"tus-resumable": "1.0.0"
		});
		expect(new Date(head.headers.get("upload-expires") as string).getTime()).toBeGreaterThan(now + 29 * 60 * 1000);
		const octets = { "Content-Type": "application/offset+octet-stream" };
		const first = await tus("PATCH", url, alice(), { ...octets, "Upload-Offset": "0" }, Buffer.from("hello"));
		expect(first.status).toBe(204);
		expect(first.headers.get("upload-offset")).toBe("5");
		const stale = await tus("PATCH", url, alice(), { ...octets, "Upload-Offset": "0" }, Buffer.from("hello"));
		expect(stale.status).toBe(409);
		expect(await stale.json()).toMatchObject({ code: 10, details: [] });
		const tooLong = await tus("PATCH", url, alice(), { ...octets, "Upload-Offset": "5" }, Buffer.from("world!"));
		expect(tooLong.status).toBe(400);
		const wrongType = await tus("PATCH", url, alice(), { "Content-Type": "application/octet-stream", "Upload-Offset": "5" }, Buffer.from("world"));
		// tus names its own status for bytes of another type; the Status body keeps the contract's code.
		expect(wrongType.status).toBe(415);
		expect(await wrongType.json()).toMatchObject({ code: 3, details: [] });
		const last = await tus("PATCH", url, alice(), { ...octets, "Upload-Offset": "5" }, Buffer.from("world"));
		expect(last.status).toBe(204);
		expect(last.headers.get("upload-offset")).toBe("10");
		const name = last.headers.get("attachment-name") as string;
		expect((await fetch(`${app().baseUrl}/file/${name}`, { headers: { Authorization: `Bearer ${alice().accessToken}` } }).then(r => r.text()))).toBe("helloworld");
		expect((await tus("HEAD", url, alice())).headers.get("attachment-name")).toBe(name);
	});

	test("a streamed PATCH carrying more than is left is refused and keeps nothing of it; the upload then completes with the right bytes and ETag", async () => {
		const size = 2 * MiB;
		const url = await create(alice(), size, `filename ${b64("over.bin")},attachmentId ${b64("tus-over")}`);
		const octets = { "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0" };
		// Without a Content-Length the excess shows only once the first MiB has been written.
		const overlong = patternBytes(0, 3 * MiB - 1);
		const pieces = new ReadableStream<Uint8Array>({
			start(controller) {
				for (let at = 0; at < overlong.length; at += 64 * 1024) controller.enqueue(overlong.subarray(at, at + 64 * 1024));
				controller.close();
			}
		});
		const refused = await fetch(url, { method: "PATCH", headers: { "Tus-Resumable": "1.0.0", Authorization: `Bearer ${alice().accessToken}`, ...octets }, body: pieces, duplex: "half" } as RequestInit);
		expect(refused.status).toBe(400);
		expect((await tus("HEAD", url, alice())).headers.get("upload-offset")).toBe("0");
		const right = patternBytes(0, size - 1);
		const done = await tus("PATCH", url, alice(), octets, right);
		expect(done.status).toBe(204);
		expect(await sha256Of("attachments/tus-over", alice())).toEqual({ sha: createHash("sha256").update(right).digest("hex"), size });
	});

	test("without Tus-Resumable (412), without a token, over the limit (413), with bad metadata: refused with the contract's codes and the statuses tus names", async () => {
		const noVersion = await fetch(endpoint(), { method: "POST", headers: { Authorization: `Bearer ${alice().accessToken}`, "Upload-Length": "5" } });
		expect(noVersion.status).toBe(412);
		expect(await noVersion.json()).toMatchObject({ code: 9, details: [] });
		expect(noVersion.headers.get("tus-resumable")).toBe("1.0.0");
		expect(noVersion.headers.get("tus-version")).toBe("1.0.0");
		const otherVersion = await fetch(endpoint(), { method: "POST", headers: { Authorization: `Bearer ${alice().accessToken}`, "Tus-Resumable": "0.2.2", "Upload-Length": "5" } });
		expect(otherVersion.status).toBe(412);
		await otherVersion.arrayBuffer();
		expect((await tus("POST", endpoint(), null, { "Upload-Length": "5", "Upload-Metadata": `filename ${b64("a.txt")}` })).status).toBe(401);
		const overLimit = await tus("POST", endpoint(), alice(), { "Upload-Length": String(30 * MiB + 1), "Upload-Metadata": `filename ${b64("a.txt")}` });
		expect(overLimit.status).toBe(413);
		expect(await overLimit.json()).toMatchObject({ code: 3, details: [] });
		const atLimit = await tus("POST", endpoint(), alice(), { "Upload-Length": String(30 * MiB), "Upload-Metadata": `filename ${b64("a.txt")}` });
		expect(atLimit.status).toBe(201);
		expect((await tus("DELETE", new URL(atLimit.headers.get("location") as string, app().baseUrl).href, alice())).status).toBe(204);
		expect((await tus("POST", endpoint(), alice(), { "Upload-Length": "5" })).status).toBe(400);
		expect((await tus("POST", endpoint(), alice(), { "Upload-Length": "5", "Upload-Metadata": "filename not*base64" })).status).toBe(400);
		expect((await tus("POST", endpoint(), alice(), { "Upload-Defer-Length": "1", "Upload-Metadata": `filename ${b64("a.txt")}` })).status).toBe(400);
		const memo = await api.create(alice(), { content: "alice's" });
		expect((await tus("POST", endpoint(), bob(), { "Upload-Length": "5", "Upload-Metadata": `filename ${b64("a.txt")},memo ${b64(memo.body.name)}` })).status).toBe(403);
		expect((await tus("POST", endpoint(), bob(), { "Upload-Length": "5", "Upload-Metadata": `filename ${b64("a.txt")},memo ${b64("memos/nosuchmemo")}` })).status).toBe(404);
	});

	test("another user's upload is NOT_FOUND; termination discards it; an idle upload expires after 30 minutes", async () => {
		const url = await create(alice(), 4, `filename ${b64("four.bin")}`);
		expect((await tus("HEAD", url, bob())).status).toBe(404);
		expect((await tus("PATCH", url, bob(), { "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0" }, Buffer.from("four"))).status).toBe(404);
		expect((await tus("DELETE", url, bob())).status).toBe(404);
		expect((await tus("DELETE", url, alice())).status).toBe(204);
		expect((await tus("HEAD", url, alice())).status).toBe(404);

		const idle = await create(alice(), 4, `filename ${b64("idle.bin")}`);
		now += 30 * 60 * 1000 + 1;
		expect((await tus("HEAD", idle, alice())).status).toBe(404);
	});

	test("tus uploads count in the per-user cap of open upload sessions, together with chunked ones", async () => {
		const urls: string[] = [];
		for (let i = 0; i < 9; i++) urls.push(await create(bob(), 4, `filename ${b64(`cap${i}.bin`)}`));
		const chunked = await api.request("POST", "/attachments:upload", { as: bob(), body: { spec: { filename: "tenth.bin", size: "4" } } });
		expect(chunked.status).toBe(200);
		const eleventh = await tus("POST", endpoint(), bob(), { "Upload-Length": "4", "Upload-Metadata": `filename ${b64("eleventh.bin")}` });
		expect(eleventh.status).toBe(429);
		for (const url of urls) expect((await tus("DELETE", url, bob())).status).toBe(204);
	});
});
