import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import path from "node:path";
import type { Session } from "../support/users.js";
import type { Answer } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

/** The chunked upload protocol of contract 8.4 on the embedded app(). */

const { app, api, users: [alice, bob, carol] } = usePopulatedApp(3, { METRICS_ENABLED: "true", METRICS_PORT: "0" });
let now = Date.now();

const MiB = 1024 * 1024;

interface UploadAnswer {
	uploadId: string;
	size: string;
	nextOffset: string;
	maxChunkSize: string;
	expireTime: string;
	attachment?: Record<string, unknown> & { name: string };
	code?: number;
}

beforeAll(async () => {
	const service = app().node.broker.getLocalService("attachments") as unknown as { clock: () => number };
	service.clock = () => now;
});

function expectError(res: Answer<unknown>, status: number, code: number): void {
	expect({ status: res.status, code: (res.body as { code?: number } | undefined)?.code }).toEqual({ status, code });
	expect(res.body).toMatchObject({ details: [] });
}

/** A string body is sent as it is (raw JSON text). */
function upload(as: Session, body: Record<string, unknown> | string) {
	return api.request<UploadAnswer>("POST", "/attachments:upload", { as, body });
}

async function open(as: Session, spec: Record<string, unknown>): Promise<UploadAnswer> {
	const res = await upload(as, { spec });
	if (res.status !== 200) throw new Error(`open answered ${res.status}: ${res.text}`);
	return res.body;
}

function chunk(as: Session, uploadId: string, offset: number, bytes: Buffer) {
	return upload(as, { uploadId, offset: String(offset), content: bytes.toString("base64") });
}

function patterned(size: number): Buffer {
	const bytes = Buffer.alloc(size);
	for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 8)) & 0xff;
	return bytes;
}

async function download(name: string, as: Session): Promise<Buffer> {
	const res = await fetch(`${app().baseUrl}/file/${name}`, { headers: { Authorization: `Bearer ${as.accessToken}` } });
	expect(res.status).toBe(200);
	return Buffer.from(await res.arrayBuffer());
}

/** Chunks staged in the blob store for the session (`uploads/<uploadId>/<n>`). */
async function stagedChunks(uploadId: string): Promise<string[]> {
	const dir = path.join(app().dataDir, "blobs", "uploads", uploadId);
	return readdir(dir).catch(() => []);
}

function openGauge(): number | undefined {
	const metric = app().node.broker.metrics.getMetric("memos_upload_sessions_open");
	return (metric?.get() as { value?: number } | null)?.value;
}

describe("opening a session", () => {
	test("answers the session with nextOffset 0, the 4 MiB chunk limit and an expiry 30 minutes ahead", async () => {
		const res = await upload(alice(), { spec: { filename: "talk.mp4", size: "10485760" } });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({
			uploadId: expect.any(String),
			size: "10485760",
			nextOffset: "0",
			maxChunkSize: String(4 * MiB),
			expireTime: new Date(now + 30 * 60 * 1000).toISOString()
		});
	});

	test.each([
		["neither spec nor uploadId", {}],
		["both spec and uploadId", { spec: { filename: "a.bin", size: "1" }, uploadId: "x" }],
		["a bad filename", { spec: { filename: "a/b", size: "1" } }],
		["a filename of only dots", { spec: { filename: "...", size: "1" } }],
		["a bad type", { spec: { filename: "a.bin", type: "nope", size: "1" } }],
		["size 0", { spec: { filename: "a.bin", size: "0" } }],
		["no size", { spec: { filename: "a.bin" } }],
		["a size over the limit", { spec: { filename: "a.bin", size: String(30 * MiB + 1) } }],
		["a malformed attachmentId", { spec: { filename: "a.bin", size: "1", attachmentId: "-x-" } }],
		["a malformed memo name", { spec: { filename: "a.bin", size: "1", memo: "notes/1" } }]
	])("%s is INVALID_ARGUMENT", async (_what, body) => {
		expectError(await upload(alice(), body), 400, 3);
	});

	test("a taken attachmentId is ALREADY_EXISTS; a missing memo NOT_FOUND; another user's memo PERMISSION_DENIED", async () => {
		await api.request("POST", "/attachments", { as: alice(), query: { attachmentId: "taken-id" }, body: { filename: "t.txt" } });
		expectError(await upload(alice(), { spec: { filename: "a.bin", size: "1", attachmentId: "taken-id" } }), 409, 6);
		expectError(await upload(alice(), { spec: { filename: "a.bin", size: "1", memo: "memos/missing" } }), 404, 5);
		const memo = await api.request<{ name: string }>("POST", "/memos", { as: bob(), body: { content: "bob's" } });
		expectError(await upload(alice(), { spec: { filename: "a.bin", size: "1", memo: memo.body.name } }), 403, 7);
	});

	test("at most 10 sessions are open per user (RESOURCE_EXHAUSTED); finishing one frees a place; others are not affected", async () => {
		const opened = [];
		for (let i = 0; i < 10; i++) opened.push(await open(carol(), { filename: `f${i}.bin`, size: "2" }));
		expectError(await upload(carol(), { spec: { filename: "eleven.bin", size: "2" } }), 429, 8);
		expect((await upload(bob(), { spec: { filename: "bobs.bin", size: "2" } })).status).toBe(200);
		const first = opened[0] as UploadAnswer;
		expect((await chunk(carol(), first.uploadId, 0, Buffer.from("ok"))).body.attachment).toBeDefined();
		expect((await upload(carol(), { spec: { filename: "eleven.bin", size: "2" } })).status).toBe(200);
	});
});

describe("sending chunks", () => {
	test("a multi-chunk upload creates the attachment byte for byte, with the SHA-256 as its ETag", async () => {
		const source = patterned(9 * MiB + 123);
		const session = await open(alice(), { filename: "data.bin", size: String(source.length), attachmentId: "upload-data" });
		let offset = 0;
		let last: UploadAnswer | undefined;
		while (offset < source.length) {
			const part = source.subarray(offset, offset + 4 * MiB);
			const res = await chunk(alice(), session.uploadId, offset, part);
			expect(res.status).toBe(200);
			offset += part.length;
			expect(res.body.nextOffset).toBe(String(offset));
			// Local files take the chunks into one staged object, which completion renames.
			if (offset < source.length) expect(await stagedChunks(session.uploadId)).toEqual(["0"]);
			last = res.body;
		}
		expect(last?.attachment).toMatchObject({ name: "attachments/upload-data", filename: "data.bin", size: String(source.length), type: "application/octet-stream" });
		const res = await fetch(`${app().baseUrl}/file/attachments/upload-data`, { headers: { Authorization: `Bearer ${alice().accessToken}` } });
		const sha = createHash("sha256").update(source).digest("hex");
		expect(res.headers.get("etag")).toBe(`"${sha}"`);
		expect(createHash("sha256").update(Buffer.from(await res.arrayBuffer())).digest("hex")).toBe(sha);
	});

	test("uploads side by side, with refused chunks among them, each store their own bytes (the gateway reuses its decode buffers)", async () => {
		const sources = [patterned(3 * MiB + 5), patterned(3 * MiB).map(byte => byte ^ 0x5a)];
		const junk = Buffer.alloc(MiB / 2, 0xee);
		const [mine, hers] = [await open(alice(), { filename: "a.bin", size: String(sources[0]?.length) }), await open(bob(), { filename: "b.bin", size: String(sources[1]?.length) })];
		for (let offset = 0; offset < 3 * MiB; offset += MiB) {
			const [first, second, refused] = await Promise.all([
				chunk(alice(), mine.uploadId, offset, (sources[0] as Buffer).subarray(offset, offset === 2 * MiB ? undefined : offset + MiB)),
				chunk(bob(), hers.uploadId, offset, (sources[1] as Buffer).subarray(offset, offset + MiB)),
				// A wrong offset, or (while the other is written) a second chunk at once: FAILED_PRECONDITION either way.
				chunk(alice(), mine.uploadId, offset + 7, junk)
			]);
			expect([first.status, second.status]).toEqual([200, 200]);
			expectError(refused, 400, 9);
		}
		const [a, b] = await Promise.all([upload(alice(), { uploadId: mine.uploadId }), upload(bob(), { uploadId: hers.uploadId })]);
		expect((await download(a.body.attachment?.name as string, alice())).equals(sources[0] as Buffer)).toBe(true);
		expect((await download(b.body.attachment?.name as string, bob())).equals(sources[1] as Buffer)).toBe(true);
	});

	test("the type comes from the spec, else the extension, else the content", async () => {
		const png = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(32)]);
		const sniffed = await open(alice(), { filename: "noext", size: String(png.length) });
		expect((await chunk(alice(), sniffed.uploadId, 0, png)).body.attachment).toMatchObject({ type: "image/png" });
		const byName = await open(alice(), { filename: "clip.mp4", size: "3" });
		expect((await chunk(alice(), byName.uploadId, 0, Buffer.from("abc"))).body.attachment).toMatchObject({ type: "video/mp4" });
		const given = await open(alice(), { filename: "clip.mp4", type: "Audio/MP4; codecs=x", size: "3" });
		expect((await chunk(alice(), given.uploadId, 0, Buffer.from("abc"))).body.attachment).toMatchObject({ type: "audio/mp4" });
	});

	test("a wrong offset is FAILED_PRECONDITION and stores nothing; an offset past the size INVALID_ARGUMENT", async () => {
		const session = await open(alice(), { filename: "strict.bin", size: "10" });
		expectError(await chunk(alice(), session.uploadId, 2, Buffer.from("ab")), 400, 9);
		expectError(await chunk(alice(), session.uploadId, 9, Buffer.from("ab")), 400, 3);
		expectError(await chunk(alice(), session.uploadId, 11, Buffer.from("a")), 400, 3);
		expect(await stagedChunks(session.uploadId)).toEqual([]);
		expect((await chunk(alice(), session.uploadId, 0, Buffer.from("abcde"))).body.nextOffset).toBe("5");
		expectError(await chunk(alice(), session.uploadId, 0, Buffer.from("abcde")), 400, 9);
		const status = await upload(alice(), { uploadId: session.uploadId });
		expect(status.body.nextOffset).toBe("5");
		expect(await stagedChunks(session.uploadId)).toEqual(["0"]);
		const done = await chunk(alice(), session.uploadId, 5, Buffer.from("fghij"));
		expect((await download(done.body.attachment?.name as string, alice())).toString()).toBe("abcdefghij");
		expect(await stagedChunks(session.uploadId)).toEqual([]);
	});

	test("a chunk over 4 MiB, invalid base64, or content without an offset is INVALID_ARGUMENT", async () => {
		const session = await open(alice(), { filename: "big.bin", size: String(8 * MiB) });
		expectError(await chunk(alice(), session.uploadId, 0, Buffer.alloc(4 * MiB + 1)), 400, 3);
		expectError(await upload(alice(), { uploadId: session.uploadId, offset: "0", content: "***" }), 400, 3);
		expectError(await upload(alice(), { uploadId: session.uploadId, content: "AAAA" }), 400, 3);
		expect((await upload(alice(), { uploadId: session.uploadId })).body.nextOffset).toBe("0");
	});

	test("a large chunk's JSON may escape its slashes (\\/, as PHP's json_encode does); a raw line feed in its content is no JSON", async () => {
		const source = patterned(300 * 1024);
		const session = await open(alice(), { filename: "escaped.bin", size: String(source.length) });
		const content = source.toString("base64");
		expect(content).toContain("/");
		const raw = (text: string) => `{"uploadId":"${session.uploadId}","offset":"0","content":"${text}"}`;
		const broken = await upload(alice(), raw(`${content.slice(0, 1000)}\n${content.slice(1000)}`));
		expect(broken.body).toMatchObject({ code: 3, message: "invalid JSON body" });
		const spoilt = await upload(alice(), raw(`${content.slice(0, 1000)}!${content.slice(1000)}`));
		expect(spoilt.body).toMatchObject({ code: 3, message: "content must be base64" });
		const done = await upload(alice(), raw(content.replaceAll("/", "\\/")));
		expect(done.status).toBe(200);
		expect((await download(done.body.attachment?.name as string, alice())).equals(source)).toBe(true);
	});

	test("a status query changes nothing; completion is replayable by a status query or the final chunk again", async () => {
		const session = await open(alice(), { filename: "replay.txt", size: "6" });
		const status = await upload(alice(), { uploadId: session.uploadId, content: "" });
		expect(status.body).toMatchObject({ uploadId: session.uploadId, nextOffset: "0", size: "6" });
		await chunk(alice(), session.uploadId, 0, Buffer.from("abc"));
		const done = await chunk(alice(), session.uploadId, 3, Buffer.from("def"));
		expect(done.body.attachment).toBeDefined();
		const again = await chunk(alice(), session.uploadId, 3, Buffer.from("def"));
		expect(again.status).toBe(200);
		expect(again.body.attachment).toEqual(done.body.attachment);
		expect((await upload(alice(), { uploadId: session.uploadId })).body.attachment).toEqual(done.body.attachment);
		const list = await api.request<{ attachments: { filename: string }[] }>("GET", "/attachments", { as: alice(), query: { filter: 'filename == "replay.txt"' } });
		expect(list.body.attachments).toHaveLength(1);
	});

	test("someone else's uploadId, an unknown one and a malformed one are NOT_FOUND", async () => {
		const session = await open(alice(), { filename: "mine.bin", size: "4" });
		expectError(await chunk(bob(), session.uploadId, 0, Buffer.from("abcd")), 404, 5);
		expectError(await upload(bob(), { uploadId: session.uploadId }), 404, 5);
		expectError(await upload(alice(), { uploadId: "Vb7Hk2LmQ9xTz4WcN8pRs3" }), 404, 5);
		expectError(await upload(alice(), { uploadId: `${session.uploadId.split(".")[0]}.${Buffer.from("elsewhere").toString("base64url")}` }), 404, 5);
		expect((await upload(alice(), { uploadId: session.uploadId })).body.nextOffset).toBe("0");
	});

	test("a session expires 30 minutes after its last successful call", async () => {
		const session = await open(alice(), { filename: "slow.bin", size: "4" });
		now += 29 * 60 * 1000;
		expect((await chunk(alice(), session.uploadId, 0, Buffer.from("ab"))).status).toBe(200);
		now += 29 * 60 * 1000;
		expect((await upload(alice(), { uploadId: session.uploadId })).body.nextOffset).toBe("2");
		now += 30 * 60 * 1000;
		expectError(await chunk(alice(), session.uploadId, 2, Buffer.from("cd")), 404, 5);
		// Every upload call first sweeps expired sessions, staged chunks included.
		expect(await stagedChunks(session.uploadId)).toEqual([]);
	});

	test("an id taken while the upload ran discards the session with ALREADY_EXISTS at completion", async () => {
		const session = await open(alice(), { filename: "late.bin", size: "2", attachmentId: "raced-id" });
		await api.request("POST", "/attachments", { as: bob(), query: { attachmentId: "raced-id" }, body: { filename: "first.txt" } });
		expectError(await chunk(alice(), session.uploadId, 0, Buffer.from("ab")), 409, 6);
		expectError(await upload(alice(), { uploadId: session.uploadId }), 404, 5);
	});

	test("a memo deleted before the last chunk discards the session with NOT_FOUND at completion (contract 8.4)", async () => {
		const memo = await api.request<{ name: string }>("POST", "/memos", { as: alice(), body: { content: "soon gone" } });
		const session = await open(alice(), { filename: "orphan.bin", size: "4", memo: memo.body.name });
		expect((await chunk(alice(), session.uploadId, 0, Buffer.from("ab"))).status).toBe(200);
		expect((await api.remove(alice(), memo.body.name)).status).toBe(200);
		expectError(await chunk(alice(), session.uploadId, 2, Buffer.from("cd")), 404, 5);
		expectError(await upload(alice(), { uploadId: session.uploadId }), 404, 5);
		expect(await stagedChunks(session.uploadId)).toEqual([]);
	});

	test("an upload with a memo is linked to it at completion", async () => {
		const memo = await api.request<{ name: string }>("POST", "/memos", { as: alice(), body: { content: "with a file" } });
		const session = await open(alice(), { filename: "linked.txt", size: "2", memo: memo.body.name });
		const done = await chunk(alice(), session.uploadId, 0, Buffer.from("hi"));
		expect(done.body.attachment).toMatchObject({ memo: memo.body.name });
		const read = await api.request<{ attachments: { name: string }[] }>("GET", `/${memo.body.name}`, { as: alice() });
		expect(read.body.attachments.map(a => a.name)).toEqual([done.body.attachment?.name]);
	});

	test("the gauge memos_upload_sessions_open counts the sessions receiving bytes", async () => {
		const before = openGauge() ?? 0;
		const session = await open(bob(), { filename: "gauge.bin", size: "1" });
		expect(openGauge()).toBe(before + 1);
		await chunk(bob(), session.uploadId, 0, Buffer.from("x"));
		expect(openGauge()).toBe(before);
	});
});
