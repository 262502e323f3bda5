import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { brotliCompressSync, createGzip, deflateSync, gzipSync } from "node:zlib";
import { DEFAULT_PASSWORD, authHeaders, type Session } from "../support/users.js";
import { usePopulatedApp } from "../support/populated-app.js";

/**
 * Issue 12, "What was seen", each reproduced over HTTP: the server answers quickly with the
 * contract's code and keeps serving others. A hang shows as the test runner's time-out.
 */
const { app, api, admin, users: [alice] } = usePopulatedApp(1);

describe("filters run in time linear in the data (contract 19)", () => {
	test("a tags.exists filter of 40 groups of alternatives, which once backtracked for hours, answers at once; others are served meanwhile", async () => {
		await api.setAccessMode(admin(), "PUBLIC");
		const tagged = await api.create(alice(), { content: "#alpha #beta/q1 hello", visibility: "PUBLIC" });
		await api.create(alice(), { content: "#alpha only", visibility: "PUBLIC" });
		const groups = Array.from({ length: 40 }, () => '(t.contains("") || t.contains(""))').join(" && ");
		const filter = `tags.exists(t, ${groups} && t.endsWith("Q1"))`;
		const [list, profile] = await Promise.all([api.list(null, { filter }), fetch(`${app().baseUrl}/api/v1/instance/profile`)]);
		expect(profile.status).toBe(200);
		expect(list.status).toBe(200);
		expect((list.body as { memos: { name: string }[] }).memos.map(memo => memo.name)).toEqual([tagged.body.name]);
	});

	test("a filter beyond the complexity limits is INVALID_ARGUMENT", async () => {
		const tooMany = Array.from({ length: 257 }, (_, i) => `content == "${i}"`).join(" || ");
		const deep = `${"(".repeat(33)}pinned${")".repeat(33)}`;
		for (const filter of [tooMany, deep]) {
			const res = await api.list(alice(), { filter });
			expect(res.status).toBe(400);
			expect(res.body).toMatchObject({ code: 3 });
		}
	});
});

const KiB = 1024;
const MiB = 1024 * KiB;

/** Sends raw body bytes with a Content-Encoding; the answer's status and Status body. */
async function send(method: string, path: string, body: Buffer | string, encoding: string | null, as: Session | null = null) {
	const headers: Record<string, string> = as === null ? { "Content-Type": "application/json" } : authHeaders(as);
	if (encoding !== null) headers["Content-Encoding"] = encoding;
	const res = await fetch(`${app().baseUrl}/api/v1${path}`, { method, headers, body });
	const text = await res.text();
	return { status: res.status, body: (text === "" ? undefined : JSON.parse(text)) as Record<string, unknown> };
}

/** `value` as JSON text of exactly `bytes` bytes, padded with whitespace before its last brace. */
function jsonOfSize(value: object, bytes: number): string {
	const text = JSON.stringify(value);
	if (Buffer.byteLength(text) > bytes) throw new Error(`the value alone takes ${Buffer.byteLength(text)} bytes`);
	return `${text.slice(0, -1)}${" ".repeat(bytes - Buffer.byteLength(text))}}`;
}

/** Gzips the concatenation of `parts` (each `[text, times]`) as it is produced, without holding it. */
async function gzipStream(parts: [string, number][]): Promise<Buffer> {
	async function* source() {
		for (const [text, times] of parts) {
			const block = Buffer.from(text.repeat(Math.ceil(MiB / text.length)).slice(0, MiB));
			for (let i = 0; i < times; i++) yield block;
		}
	}
	const chunks: Buffer[] = [];
	await pipeline(Readable.from(source()), createGzip({ level: 9 }), async compressed => {
		for await (const chunk of compressed as AsyncIterable<Buffer>) chunks.push(chunk);
	});
	return Buffer.concat(chunks);
}

const profile = () => fetch(`${app().baseUrl}/api/v1/instance/profile`);

describe("request bodies (contract 19)", () => {
	test("a 64 KiB gzip bomb of 32 Mi '[' then 32 Mi ']' sent anonymously to SignIn, twice at once, is INVALID_ARGUMENT; others are served meanwhile", async () => {
		const bomb = await gzipStream([["[", 32], ["]", 32]]);
		expect(bomb.length).toBeLessThan(128 * KiB);
		const [first, second, served] = await Promise.all([send("POST", "/auth/signin", bomb, "gzip"), send("POST", "/auth/signin", bomb, "gzip"), profile()]);
		expect(served.status).toBe(200);
		for (const refused of [first, second]) expect(refused).toEqual({ status: 400, body: { code: 3, message: "request body is nested deeper than 64 levels", details: [] } });
	});

	test("a flat body inflating to 32 MiB is refused once the inflated bytes pass SignIn's 256 KiB; others are served meanwhile", async () => {
		const bomb = await gzipStream([['{"passwordCredentials":{"username":"user1","password":"', 0], ["a", 32]]);
		const [refused, served] = await Promise.all([send("POST", "/auth/signin", bomb, "gzip"), profile()]);
		expect(served.status).toBe(200);
		expect(refused).toEqual({ status: 400, body: { code: 3, message: `request body is larger than the ${256 * KiB} bytes this operation takes`, details: [] } });
	});

	test("gzip, deflate, br and identity bodies are read; the encoding's name is case-insensitive", async () => {
		const memo = (content: string) => Buffer.from(JSON.stringify({ content }));
		const encoded: [string | null, Buffer][] = [
			[null, memo("plain")],
			["identity", memo("identity")],
			["gzip", gzipSync(memo("gzip"))],
			["GZip", gzipSync(memo("GZip"))],
			["deflate", deflateSync(memo("deflate"))],
			["br", brotliCompressSync(memo("br"))]
		];
		for (const [encoding, body] of encoded) {
			const res = await send("POST", "/memos", body, encoding, alice());
			expect({ encoding, status: res.status, content: res.body.content }).toEqual({ encoding, status: 200, content: JSON.parse(String(memo(encoding ?? "plain"))).content });
		}
		const signIn = Buffer.from(JSON.stringify({ passwordCredentials: { username: alice().user.username, password: DEFAULT_PASSWORD } }));
		expect((await send("POST", "/auth/signin", brotliCompressSync(signIn), "br")).status).toBe(200);
	});

	test("a body that does not decode as its Content-Encoding, or in another encoding, is INVALID_ARGUMENT on every kind of route", async () => {
		const memo = await api.create(alice(), { content: "target" });
		const truncated = gzipSync(Buffer.from(JSON.stringify({ content: "x".repeat(1000) }))).subarray(0, 40);
		const routes: [string, string][] = [
			["POST", "/auth/signin"],
			["POST", "/memos"],
			["PATCH", `/${memo.body.name}?updateMask=content`],
			["POST", "/attachments"],
			["PATCH", `/users/${alice().user.username}?updateMask=displayName`]
		];
		const bodies: [string, Buffer | string, string][] = [
			["gzip", "{}", "request body is not valid gzip data"],
			["deflate", "{}", "request body is not valid deflate data"],
			["br", "{}", "request body is not valid br data"],
			["gzip", truncated, "request body is not valid gzip data"],
			["compress", "{}", 'unsupported Content-Encoding "compress": gzip, deflate, br and identity are accepted'],
			["gzip, br", "{}", 'unsupported Content-Encoding "gzip, br": gzip, deflate, br and identity are accepted']
		];
		for (const [method, path] of routes) {
			for (const [encoding, body, message] of bodies) {
				const res = await send(method, path, body, encoding, alice());
				expect({ method, path, encoding, ...res }).toEqual({ method, path, encoding, status: 400, body: { code: 3, message, details: [] } });
			}
		}
		expect((await send("POST", "/memos", Buffer.from([0x7b, 0xff, 0x7d]), null, alice())).body).toEqual({ code: 3, message: "request body is not valid UTF-8", details: [] });
	});

	test("JSON nested 64 levels is read, 65 is INVALID_ARGUMENT; brackets inside strings do not count", async () => {
		// The body's own object is the first level.
		const nested = (levels: number) => `{"content":"deep","pad":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
		expect((await send("POST", "/memos", nested(64), null, alice())).status).toBe(200);
		expect(await send("POST", "/memos", nested(65), null, alice())).toEqual({ status: 400, body: { code: 3, message: "request body is nested deeper than 64 levels", details: [] } });
		const inStrings = `{"content":"${"[{".repeat(100)}","pad":"\\\\\\"[[[","deep":${"[".repeat(63)}${"]".repeat(63)}}`;
		const res = await send("POST", "/memos", inStrings, null, alice());
		expect({ status: res.status, content: res.body.content }).toEqual({ status: 200, content: "[{".repeat(100) });
	});

	test("each operation takes its body limit of the route table, counted once inflated: the largest allowed succeeds, one byte more is refused", async () => {
		const memo = await api.create(alice(), { content: "limits" });
		const refusal = (limit: number) => ({ status: 400, body: { code: 3, message: `request body is larger than the ${limit} bytes this operation takes`, details: [] } });
		const reaction = (bytes: number) => jsonOfSize({ reaction: { reactionType: "👍", contentId: memo.body.name } }, bytes);
		const reactions = `/${memo.body.name}/reactions`;
		// Everything else: 256 KiB, plain or inflated.
		expect((await send("POST", reactions, reaction(256 * KiB), null, alice())).status).toBe(200);
		expect(await send("POST", reactions, reaction(256 * KiB + 1), null, alice())).toEqual(refusal(256 * KiB));
		expect((await send("POST", reactions, gzipSync(reaction(256 * KiB)), "gzip", alice())).status).toBe(200);
		expect(await send("POST", reactions, gzipSync(reaction(256 * KiB + 1)), "gzip", alice())).toEqual(refusal(256 * KiB));
		// Memo bodies: the content limit (8192 bytes) and 64 KiB.
		const memoLimit = 8192 + 64 * KiB;
		const memoBody = (bytes: number) => jsonOfSize({ content: "m".repeat(8192) }, bytes);
		expect((await send("POST", "/memos", memoBody(memoLimit), null, alice())).status).toBe(200);
		expect(await send("POST", "/memos", memoBody(memoLimit + 1), null, alice())).toEqual(refusal(memoLimit));
		expect((await send("PATCH", `/${memo.body.name}?updateMask=content`, memoBody(memoLimit), null, alice())).status).toBe(200);
		// User bodies: 3 MiB.
		const user = `/users/${alice().user.username}?updateMask=displayName`;
		const userBody = (bytes: number) => jsonOfSize({ displayName: "Alice" }, bytes);
		expect((await send("PATCH", user, userBody(3 * MiB), null, alice())).status).toBe(200);
		expect(await send("PATCH", user, userBody(3 * MiB + 1), null, alice())).toEqual(refusal(3 * MiB));
	});

	test("inline attachment content takes the STORAGE upload limit in base64 and 64 KiB", async () => {
		const storage = (uploadSizeLimitMb: string) => api.request("PATCH", "/instance/settings/STORAGE", { as: admin(), body: { storageSetting: { uploadSizeLimitMb } }, query: { updateMask: "storage_setting.upload_size_limit_mb" } });
		expect((await storage("1")).status).toBe(200);
		try {
			const limit = Math.ceil(MiB / 3) * 4 + 64 * KiB;
			const body = (bytes: number) => jsonOfSize({ filename: "one.bin", content: Buffer.alloc(MiB, 5).toString("base64") }, bytes);
			const created = await send("POST", "/attachments", body(limit), null, alice());
			expect({ status: created.status, size: created.body.size }).toEqual({ status: 200, size: String(MiB) });
			expect(await send("POST", "/attachments", body(limit + 1), null, alice())).toEqual({
				status: 400,
				body: { code: 3, message: `request body is larger than the ${limit} bytes this operation takes`, details: [] }
			});
		} finally {
			expect((await storage("30")).status).toBe(200);
		}
	});
});

describe("free-form fields (contract 19): the largest allowed value is stored, one more is INVALID_ARGUMENT", () => {
	const expectRefused = (res: { status: number; body: unknown }, message: string) => {
		expect(res.status).toBe(400);
		expect(res.body).toMatchObject({ code: 3, message: expect.stringContaining(message) });
	};
	const createAttachment = (attachment: Record<string, unknown>) => api.request("POST", "/attachments", { as: alice(), body: { filename: "f.txt", content: "AAEC", ...attachment } });

	test("location.placeholder: 256 characters", async () => {
		const placeholder = "😀".repeat(256);
		const created = await api.create(alice(), { content: "here", location: { placeholder, latitude: 1, longitude: 2 } });
		expect(created.status).toBe(200);
		expect(created.body.location).toEqual({ placeholder, latitude: 1, longitude: 2 });
		expectRefused(await api.create(alice(), { content: "here", location: { placeholder: `${placeholder}a` } }), "location.placeholder must be at most 256 characters");
		expectRefused(await api.update(alice(), created.body.name, "location", { location: { placeholder: "a".repeat(257) } }), "location.placeholder");
	});

	test("externalLink and avatarUrl as URLs: 2048 bytes", async () => {
		const url = (bytes: number) => `https://example.com/${"a".repeat(bytes - "https://example.com/".length)}`;
		const linked = await createAttachment({ content: undefined, externalLink: url(2048) });
		expect({ status: linked.status, externalLink: linked.body.externalLink }).toEqual({ status: 200, externalLink: url(2048) });
		expectRefused(await createAttachment({ content: undefined, externalLink: url(2049) }), "attachment.externalLink must be at most 2048 bytes");
		const avatar = (avatarUrl: string) => api.request("PATCH", `/users/${alice().user.username}`, { as: alice(), query: { updateMask: "avatarUrl" }, body: { avatarUrl } });
		const set = await avatar(url(2048));
		expect({ status: set.status, avatarUrl: set.body.avatarUrl }).toEqual({ status: 200, avatarUrl: url(2048) });
		expectRefused(await avatar(url(2049)), "must be at most 2048 bytes");
	});

	test("an avatar data URI: 2 MiB once decoded", async () => {
		const png = (bytes: number) => `data:image/png;base64,${Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.alloc(bytes - 8, 1)]).toString("base64")}`;
		const avatar = (avatarUrl: string) => api.request("PATCH", `/users/${alice().user.username}`, { as: alice(), query: { updateMask: "avatarUrl" }, body: { avatarUrl } });
		expect((await avatar(png(2 * MiB))).status).toBe(200);
		const served = await fetch(`${app().baseUrl}/file/users/${alice().user.username}/avatar`, { headers: authHeaders(alice()) });
		expect({ status: served.status, size: (await served.arrayBuffer()).byteLength }).toEqual({ status: 200, size: 2 * MiB });
		expectRefused(await avatar(png(2 * MiB + 1)), `more than ${2 * MiB}`);
	});

	test("JSON object fields: 16 KiB serialised, 8 levels, no key starting with $ or holding a dot", async () => {
		const sized = (bytes: number) => ({ note: "x".repeat(bytes - JSON.stringify({ note: "" }).length) });
		const nested = (levels: number): Record<string, unknown> => (levels === 1 ? { leaf: true } : { down: nested(levels - 1) });
		for (const field of ["mediaMetadata", "motionMedia"]) {
			for (const value of [sized(16 * KiB), nested(8), { list: [[[1]]], "key-with-$": { "a b": "ok" } }]) {
				const res = await createAttachment({ [field]: value });
				expect({ field, status: res.status, stored: res.body[field] }).toEqual({ field, status: 200, stored: value });
			}
			expectRefused(await createAttachment({ [field]: sized(16 * KiB + 1) }), `attachment.${field} is ${16 * KiB + 1} bytes as JSON`);
			expectRefused(await createAttachment({ [field]: nested(9) }), `attachment.${field} is nested deeper than 8 levels`);
			expectRefused(await createAttachment({ [field]: { list: [[[[[[[[1]]]]]]]] } }), "nested deeper than 8 levels");
			for (const key of ["$where", "a.b", "."]) {
				expectRefused(await createAttachment({ [field]: { deep: [{ [key]: 1 }] } }), `has the key ${JSON.stringify(key)}`);
			}
		}
	});

	test("a lone surrogate anywhere in a body (content, filename, a key) is INVALID_ARGUMENT; paired halves are text", async () => {
		const lone = "the request holds text that is not valid UTF-8 (lone surrogate)";
		expect(await send("POST", "/memos", '{"content":"half \\\\ud800 here"}', null, alice())).toMatchObject({ status: 200 });
		expect(await send("POST", "/memos", '{"content":"half \\ud800 here"}', null, alice())).toEqual({ status: 400, body: { code: 3, message: lone, details: [] } });
		expect(await send("POST", "/memos", '{"content":"low \\udc00"}', null, alice())).toEqual({ status: 400, body: { code: 3, message: lone, details: [] } });
		expect(await send("POST", "/attachments", '{"filename":"a\\udfff.txt","content":"AAEC"}', null, alice())).toEqual({ status: 400, body: { code: 3, message: lone, details: [] } });
		expect(await send("POST", "/attachments", '{"filename":"a.txt","content":"AAEC","mediaMetadata":{"k\\ud800":1}}', null, alice())).toEqual({ status: 400, body: { code: 3, message: lone, details: [] } });
		const paired = await send("POST", "/attachments", '{"filename":"\\ud83d\\ude00.txt","content":"AAEC"}', null, alice());
		expect({ status: paired.status, filename: paired.body.filename }).toEqual({ status: 200, filename: "😀.txt" });
		const file = await fetch(`${app().baseUrl}/file/${String(paired.body.name)}`, { headers: authHeaders(alice()) });
		expect({ status: file.status, disposition: file.headers.get("content-disposition") }).toEqual({ status: 200, disposition: `attachment; filename="__.txt"; filename*=UTF-8''%F0%9F%98%80.txt` });
	});

	test("a tus upload whose filename is not UTF-8 is INVALID_ARGUMENT", async () => {
		const tus = (filename: Buffer) =>
			fetch(`${app().baseUrl}/api/v1/attachments:tus`, {
				method: "POST",
				headers: { "Tus-Resumable": "1.0.0", Authorization: `Bearer ${alice().accessToken}`, "Upload-Length": "3", "Upload-Metadata": `filename ${filename.toString("base64")}` }
			});
		// A surrogate half encoded as UTF-8 (CESU-8), and a stray continuation byte.
		for (const bad of [Buffer.from("eda080", "hex"), Buffer.from([0x61, 0x80])]) {
			const res = await tus(bad);
			expect({ status: res.status, body: await res.json() }).toEqual({ status: 400, body: { code: 3, message: 'Upload-Metadata value of "filename" is not UTF-8 text', details: [] } });
		}
		expect((await tus(Buffer.from("日本.txt"))).status).toBe(201);
	});
});

describe("path segments that do not percent-decode as UTF-8 are INVALID_ARGUMENT on every route with a path parameter (contract 19)", () => {
	test.each(["%ZZ", "%ED%A0%80", "%E6%97", "%", "a%C0%AFb"])("%s", async segment => {
		const paths: [string, string][] = [
			["GET", `/api/v1/memos/${segment}`],
			["PATCH", `/api/v1/memos/${segment}?updateMask=content`],
			["DELETE", `/api/v1/memos/${segment}`],
			["GET", `/api/v1/memos/${segment}/comments`],
			["POST", `/api/v1/memos/${segment}/reactions`],
			["DELETE", `/api/v1/memos/abc/reactions/${segment}`],
			["GET", `/api/v1/users/${segment}`],
			["GET", `/api/v1/users/${segment}:getStats`],
			["GET", `/api/v1/attachments/${segment}`],
			["GET", `/api/v1/shares/${segment}/memo`],
			["HEAD", `/api/v1/attachments:tus/${segment}`],
			["GET", `/api/v1/spaces/${segment}`],
			["GET", `/api/v1/instance/settings/${segment}`],
			["PUT", `/api/v1/memos/${segment}`],
			["GET", `/file/attachments/${segment}`],
			["GET", `/file/attachments/abc/${segment}`],
			["GET", `/file/users/${segment}/avatar`],
			["GET", `/api-docs/${segment}`]
		];
		for (const [method, path] of paths) {
			const res = await fetch(`${app().baseUrl}${path}`, { method, headers: { ...authHeaders(alice()), "Tus-Resumable": "1.0.0" }, ...(method === "POST" || method === "PATCH" ? { body: "{}" } : {}) });
			const text = await res.text();
			const body = method === "HEAD" ? undefined : (JSON.parse(text) as unknown);
			expect({ method, path, status: res.status, body }).toEqual({ method, path, status: 400, body: method === "HEAD" ? undefined : { code: 3, message: "a path segment is not valid percent-encoded UTF-8", details: [] } });
		}
		expect((await profile()).status).toBe(200);
	});
});
