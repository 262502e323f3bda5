import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { signIn, signUp, type Session } from "../support/users.js";
import type { Answer } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

const { app, api, admin, users: [alice, bob] } = usePopulatedApp(2);

type Attachment = Record<string, unknown> & { name: string };

const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(64, 1)]);

function expectError(res: Answer<unknown>, status: number, code: number): void {
	expect({ status: res.status, code: (res.body as { code?: number } | undefined)?.code }).toEqual({ status, code });
	expect(res.body).toMatchObject({ details: [] });
}

function create(as: Session | null, attachment: Record<string, unknown> | string, attachmentId?: string) {
	return api.request<Attachment>("POST", "/attachments", { as, body: attachment, query: attachmentId === undefined ? {} : { attachmentId } });
}

async function created(attachment: Record<string, unknown>, as = alice(), attachmentId?: string): Promise<Attachment> {
	const res = await create(as, attachment, attachmentId);
	if (res.status !== 200) throw new Error(`CreateAttachment answered ${res.status}: ${res.text}`);
	return res.body;
}

async function fileBytes(name: string, as: Session): Promise<Buffer> {
	const res = await fetch(`${app().baseUrl}/file/${name}`, { headers: { Authorization: `Bearer ${as.accessToken}` } });
	expect(res.status).toBe(200);
	return Buffer.from(await res.arrayBuffer());
}

async function setUploadLimitMb(mb: number): Promise<void> {
	const res = await api.request("PATCH", "/instance/settings/STORAGE", {
		as: admin(),
		query: { updateMask: "storage_setting.upload_size_limit_mb" },
		body: { storageSetting: { uploadSizeLimitMb: String(mb) } }
	});
	if (res.status !== 200) throw new Error(`UpdateInstanceSetting STORAGE answered ${res.status}: ${res.text}`);
}

describe("CreateAttachment (contract 8.2)", () => {
	test("stores base64 content with a generated id and answers the Attachment of 4.6", async () => {
		const content = Buffer.from("hello, attachments\n");
		const res = await create(alice(), { filename: "hello.txt", content: content.toString("base64") });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({
			name: expect.stringMatching(/^attachments\/[23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz]{22}$/),
			createTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
			filename: "hello.txt",
			externalLink: "",
			type: "text/plain",
			size: String(content.length),
			space: null
		});
		expect((await fileBytes(res.body.name, alice())).equals(content)).toBe(true);
	});

	test("a client-chosen id is kept; a taken one is ALREADY_EXISTS; a malformed one INVALID_ARGUMENT", async () => {
		const first = await created({ filename: "a.bin", content: "AAEC" }, alice(), "chosen-1");
		expect(first.name).toBe("attachments/chosen-1");
		expectError(await create(bob(), { filename: "b.bin", content: "AAEC" }, "chosen-1"), 409, 6);
		expectError(await create(alice(), { filename: "b.bin" }, "-bad-"), 400, 3);
	});

	test("the type: given (parameters dropped, lower-cased), else from the extension, else sniffed, else octet-stream", async () => {
		expect((await created({ filename: "x.txt", type: "Text/Markdown; charset=UTF-8", content: "IyBoaQ==" })).type).toBe("text/markdown");
		expect((await created({ filename: "photo.jpeg", content: "AAEC" })).type).toBe("image/jpeg");
		expect((await created({ filename: "noext", content: PNG.toString("base64") })).type).toBe("image/png");
		expect((await created({ filename: "noext", content: "AAECAwQ=" })).type).toBe("application/octet-stream");
	});

	test("an external link stores no bytes and has size 0; neither content nor link is a zero-byte file", async () => {
		const link = await created({ filename: "remote.pdf", externalLink: "https://example.com/remote.pdf" });
		expect(link).toMatchObject({ externalLink: "https://example.com/remote.pdf", size: "0", type: "application/pdf" });
		const empty = await created({ filename: "empty.txt" });
		expect(empty).toMatchObject({ size: "0", externalLink: "" });
		expect((await fileBytes(empty.name, alice())).length).toBe(0);
	});

	test("fields are read by their snake_case names too, and null means unset (contract 1.2)", async () => {
		const link = await created({ filename: "snake.pdf", external_link: "https://example.com/snake.pdf", media_metadata: { width: 1 }, motion_media: null });
		expect(link).toMatchObject({ externalLink: "https://example.com/snake.pdf", mediaMetadata: { width: 1 } });
		expect(link).not.toHaveProperty("motionMedia");
		expect((await created({ filename: "plain.txt", type: null, memo: null })).type).toBe("text/plain");
	});

	test("motionMedia and mediaMetadata are stored and echoed as given", async () => {
		const motionMedia = { family: "APPLE_LIVE_PHOTO", role: "STILL", groupId: "g1", presentationTimestampUs: "1500000", hasEmbeddedVideo: false };
		const mediaMetadata = { width: 4032, height: 3024 };
		const attachment = await created({ filename: "live.heic", content: "AAEC", motionMedia, mediaMetadata });
		expect(attachment).toMatchObject({ motionMedia, mediaMetadata });
		expect((await api.request("GET", `/${attachment.name}`, { as: alice() })).body).toMatchObject({ motionMedia, mediaMetadata });
	});

	test.each([
		["invalid base64", { filename: "a.txt", content: "not base64!" }],
		["content with externalLink", { filename: "a.txt", content: "AAEC", externalLink: "https://example.com/a" }],
		["a filename with /", { filename: "a/b.txt", content: "AAEC" }],
		["a filename with \\", { filename: "a\\b.txt", content: "AAEC" }],
		["a filename with NUL", { filename: "a\u0000b.txt", content: "AAEC" }],
		["a filename of 256 bytes", { filename: `${"é".repeat(126)}.txt`, content: "AAEC" }],
		["a filename of only dots", { filename: "..", content: "AAEC" }],
		["a filename ending with a space", { filename: "a.txt ", content: "AAEC" }],
		["a filename starting with a dot", { filename: ".hidden", content: "AAEC" }],
		["no filename", { content: "AAEC" }],
		["a type that is not a media type", { filename: "a.txt", type: "text", content: "AAEC" }],
		["a type with spaces inside", { filename: "a.txt", type: "text/pl ain", content: "AAEC" }],
		["a type longer than 255 characters", { filename: "a.txt", type: `text/${"x".repeat(251)}`, content: "AAEC" }],
		["an externalLink that is not http(s)", { filename: "a.txt", externalLink: "ftp://example.com/a" }],
		["a malformed memo name", { filename: "a.txt", memo: "notes/1" }]
	])("%s is INVALID_ARGUMENT and creates nothing", async (_what, body) => {
		const before = await api.request<{ attachments: Attachment[] }>("GET", "/attachments", { as: bob(), query: { pageSize: "1000" } });
		expectError(await create(bob(), body), 400, 3);
		const after = await api.request<{ attachments: Attachment[] }>("GET", "/attachments", { as: bob(), query: { pageSize: "1000" } });
		expect(after.body.attachments.length).toBe(before.body.attachments.length);
	});

	test("content over the STORAGE uploadSizeLimitMb is INVALID_ARGUMENT; at the limit it is stored", async () => {
		await setUploadLimitMb(1);
		try {
			const atLimit = Buffer.alloc(1024 * 1024, 7);
			expect((await created({ filename: "limit.bin", content: atLimit.toString("base64") })).size).toBe(String(atLimit.length));
			expectError(await create(alice(), { filename: "over.bin", content: Buffer.alloc(1024 * 1024 + 1).toString("base64") }), 400, 3);
		} finally {
			await setUploadLimitMb(30);
		}
	});

	test("a 30 MiB attachment is stored whole; its SHA-256 is the ETag", async () => {
		const big = Buffer.alloc(30 * 1024 * 1024);
		for (let i = 0; i < big.length; i += 4096) big.writeUInt32BE(i, i);
		const attachment = await created({ filename: "big.bin", content: big.toString("base64") });
		expect(attachment.size).toBe(String(big.length));
		const res = await fetch(`${app().baseUrl}/file/${attachment.name}`, { method: "HEAD", headers: { Authorization: `Bearer ${alice().accessToken}` } });
		expect(res.headers.get("etag")).toBe(`"${createHash("sha256").update(big).digest("hex")}"`);
	});

	test("anonymous callers are UNAUTHENTICATED", async () => {
		expectError(await create(null, { filename: "a.txt" }), 401, 16);
	});
});

describe("GetAttachment, UpdateAttachment, DeleteAttachment (contract 8.1, 8.3)", () => {
	test("an unlinked attachment is read by its creator and ADMINs only", async () => {
		const attachment = await created({ filename: "mine.txt", content: "AAEC" });
		expect((await api.request("GET", `/${attachment.name}`, { as: alice() })).body).toEqual(attachment);
		expect((await api.request("GET", `/${attachment.name}`, { as: admin() })).status).toBe(200);
		expectError(await api.request("GET", `/${attachment.name}`, { as: bob() }), 403, 7);
		expectError(await api.request("GET", `/${attachment.name}`, { as: null }), 401, 16);
		expectError(await api.request("GET", "/attachments/nope", { as: alice() }), 404, 5);
	});

	test("UpdateAttachment changes the filename only, with the mask required", async () => {
		const attachment = await created({ filename: "old.txt", content: "AAEC" });
		const res = await api.request<Attachment>("PATCH", `/${attachment.name}`, { as: alice(), query: { updateMask: "filename" }, body: { filename: "new.txt", type: "image/png" } });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ ...attachment, filename: "new.txt" });
		expect((await api.request("PATCH", `/${attachment.name}`, { as: admin(), query: { updateMask: "filename" }, body: { filename: "admin.txt" } })).status).toBe(200);
		expectError(await api.request("PATCH", `/${attachment.name}`, { as: alice(), body: { filename: "x.txt" } }), 400, 3);
		expectError(await api.request("PATCH", `/${attachment.name}`, { as: alice(), query: { updateMask: "type" }, body: { type: "text/plain" } }), 400, 3);
		expectError(await api.request("PATCH", `/${attachment.name}`, { as: alice(), query: { updateMask: "filename" }, body: { filename: "a/b" } }), 400, 3);
		expectError(await api.request("PATCH", `/${attachment.name}`, { as: bob(), query: { updateMask: "filename" }, body: { filename: "x.txt" } }), 403, 7);
		expectError(await api.request("PATCH", "/attachments/nope", { as: alice(), query: { updateMask: "filename" }, body: { filename: "x.txt" } }), 404, 5);
	});

	test("DeleteAttachment removes record and bytes; others get PERMISSION_DENIED, missing NOT_FOUND", async () => {
		const attachment = await created({ filename: "gone.txt", content: "AAEC" });
		expectError(await api.request("DELETE", `/${attachment.name}`, { as: bob() }), 403, 7);
		const res = await api.request("DELETE", `/${attachment.name}`, { as: alice() });
		expect(res.status).toBe(200);
		expect(res.text).toBe("");
		expectError(await api.request("GET", `/${attachment.name}`, { as: alice() }), 404, 5);
		const file = await fetch(`${app().baseUrl}/file/${attachment.name}`, { headers: { Authorization: `Bearer ${alice().accessToken}` } });
		expect(file.status).toBe(404);
		expectError(await api.request("DELETE", `/${attachment.name}`, { as: alice() }), 404, 5);
		const byAdmin = await created({ filename: "admin-deletes.txt", content: "AAEC" });
		expect((await api.request("DELETE", `/${byAdmin.name}`, { as: admin() })).status).toBe(200);
	});
});

describe("BatchDeleteAttachments (contract 8.3)", () => {
	const batchDelete = (as: Session, names: unknown) => api.request("POST", "/attachments:batchDelete", { as, body: { names } });
	const exists = async (name: string) => (await api.request("GET", `/${name}`, { as: admin() })).status === 200;

	test("deletes every named attachment; duplicates are ignored", async () => {
		const a = await created({ filename: "a.txt", content: "AAEC" });
		const b = await created({ filename: "b.txt", content: "AAEC" });
		const res = await batchDelete(alice(), [a.name, b.name, a.name]);
		expect(res.status).toBe(200);
		expect(res.text).toBe("");
		expect(await exists(a.name)).toBe(false);
		expect(await exists(b.name)).toBe(false);
	});

	test("all or nothing: one missing name is NOT_FOUND, one forbidden PERMISSION_DENIED, and nothing is deleted", async () => {
		const mine = await created({ filename: "keep.txt", content: "AAEC" });
		const bobs = await created({ filename: "bobs.txt", content: "AAEC" }, bob());
		expectError(await batchDelete(alice(), [mine.name, "attachments/missing"]), 404, 5);
		expectError(await batchDelete(alice(), [mine.name, bobs.name]), 403, 7);
		expect(await exists(mine.name)).toBe(true);
		expect(await exists(bobs.name)).toBe(true);
		expect((await batchDelete(admin(), [mine.name, bobs.name])).status).toBe(200);
		expect(await exists(mine.name)).toBe(false);
	});

	test("100 names, the most a batch takes, are all deleted", async () => {
		const names: string[] = [];
		for (let i = 0; i < 100; i++) names.push((await created({ filename: `n${i}.txt`, content: "AAEC" })).name);
		expect((await batchDelete(alice(), names)).status).toBe(200);
		for (const name of [names[0] as string, names[99] as string]) expect(await exists(name)).toBe(false);
		const listed = await api.request<{ attachments: Attachment[] }>("GET", "/attachments", { as: alice(), query: { pageSize: "1000" } });
		expect(listed.body.attachments.filter(a => names.includes(a.name))).toEqual([]);
	});

	test.each([
		["an empty list", []],
		["101 names", Array.from({ length: 101 }, (_, i) => `attachments/a${i}`)],
		["a name of another kind", ["memos/abc"]],
		["a bare id", ["abc"]],
		["not a list", "attachments/abc"]
	])("%s is INVALID_ARGUMENT", async (_what, names) => {
		expectError(await batchDelete(alice(), names), 400, 3);
	});
});

describe("InstanceStats (contract 4.11)", () => {
	test("counts the attachments and their bytes", async () => {
		const stats = await api.request<{ attachmentCount: number; attachmentBytes: string; localStorageBytes: string }>("GET", "/instance/stats", { as: admin() });
		const all = [...app().users, admin()];
		let count = 0;
		let bytes = 0;
		for (const user of all) {
			const listed = await api.request<{ attachments: Attachment[] }>("GET", "/attachments", { as: user, query: { pageSize: "1000" } });
			count += listed.body.attachments.length;
			bytes += listed.body.attachments.reduce((sum, a) => sum + Number(a.size), 0);
		}
		expect(stats.body).toMatchObject({ attachmentCount: count, attachmentBytes: String(bytes), localStorageBytes: String(bytes) });
	});
});

describe("DeleteUser (contract 2.4)", () => {
	test("removes the user's attachments and their bytes", async () => {
		await signUp(app().baseUrl, "leaving", undefined, { accessToken: admin().accessToken });
		const leaving = await signIn(app().baseUrl, "leaving");
		const attachment = await created({ filename: "mine.txt", content: "AAEC" }, leaving);
		const blobs = async () => (await readdir(path.join(app().dataDir, "blobs", "attachments"))).length;
		const before = await blobs();
		expect((await api.request("DELETE", "/users/leaving", { as: admin() })).status).toBe(200);
		expectError(await api.request("GET", `/${attachment.name}`, { as: admin() }), 404, 5);
		expect(await blobs()).toBe(before - 1);
	});
});
