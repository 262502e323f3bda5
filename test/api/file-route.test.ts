import { createHash, randomBytes } from "node:crypto";
import { readdir, readlink } from "node:fs/promises";
import { request } from "node:http";
import { join } from "node:path";
import { REFRESH_TTL_MS } from "../../services/auth/refresh-tokens.js";
import { refreshCookieOf, signIn, type Session } from "../support/users.js";
import { usePopulatedApp } from "../support/populated-app.js";

/** `GET`/`HEAD /file/attachments/{attachment}[/{filename}]` (contract 8.5). */

const { app, api, admin, users: [alice, bob] } = usePopulatedApp(2);

const CONTENT = Buffer.from("0123456789abcdefghij");
const SHA = createHash("sha256").update(CONTENT).digest("hex");
let plain: { name: string; createTime: string };

beforeAll(async () => {
	plain = await created({ filename: "notes.txt", content: CONTENT.toString("base64") });
});

async function created(attachment: Record<string, unknown>, as = alice()): Promise<{ name: string; createTime: string }> {
	const res = await api.request<{ name: string; createTime: string }>("POST", "/attachments", { as, body: attachment });
	if (res.status !== 200) throw new Error(`CreateAttachment answered ${res.status}: ${res.text}`);
	return res.body;
}

function file(name: string, options: { as?: Session | null; headers?: Record<string, string>; method?: string; suffix?: string } = {}) {
	const headers: Record<string, string> = { ...options.headers };
	if (options.as) headers.Authorization = `Bearer ${options.as.accessToken}`;
	return fetch(`${app().baseUrl}/file/${name}${options.suffix ?? ""}`, { method: options.method ?? "GET", headers });
}

async function expectStatus(res: Response, status: number, code: number): Promise<void> {
	expect(res.status).toBe(status);
	expect(await res.json()).toMatchObject({ code, details: [] });
}

describe("headers (contract 8.5)", () => {
	test("a text file: charset added, attachment disposition, strong ETag, Last-Modified, private caching, nosniff and CSP", async () => {
		const res = await file(plain.name, { as: alice() });
		expect(res.status).toBe(200);
		expect(Buffer.from(await res.arrayBuffer()).equals(CONTENT)).toBe(true);
		expect(Object.fromEntries(res.headers)).toMatchObject({
			"content-type": "text/plain; charset=utf-8",
			"content-disposition": `attachment; filename="notes.txt"; filename*=UTF-8''notes.txt`,
			"content-length": String(CONTENT.length),
			etag: `"${SHA}"`,
			"last-modified": new Date(plain.createTime).toUTCString(),
			"accept-ranges": "bytes",
			"cache-control": "private, no-store",
			"x-content-type-options": "nosniff",
			"content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox"
		});
	});

	test("the filename segment is informational; HEAD answers the headers without a body", async () => {
		const named = await file(plain.name, { as: alice(), suffix: "/anything.bin" });
		expect(named.status).toBe(200);
		expect(await named.text()).toBe(CONTENT.toString());
		const head = await file(plain.name, { as: alice(), method: "HEAD" });
		expect(head.status).toBe(200);
		expect(head.headers.get("content-length")).toBe(String(CONTENT.length));
		expect(await head.text()).toBe("");
	});

	test.each([
		["image/png", "pic.png", "image/png", "inline"],
		["video/mp4", "clip.mp4", "video/mp4", "inline"],
		["application/pdf", "doc.pdf", "application/pdf", "inline"],
		["text/html", "page.html", "application/octet-stream", "attachment"],
		["image/svg+xml", "logo.svg", "application/octet-stream", "attachment"],
		["application/javascript", "app().js", "application/octet-stream", "attachment"],
		["text/xml", "feed.xml", "application/octet-stream", "attachment"],
		["application/zip", "a.zip", "application/zip", "attachment"]
	])("stored %s (%s) is served as %s, %s", async (type, filename, served, disposition) => {
		const attachment = await created({ filename, type, content: "PHN2Zz48L3N2Zz4=" });
		const res = await file(attachment.name, { as: alice() });
		expect(res.headers.get("content-type")).toBe(served);
		expect(res.headers.get("content-disposition")?.startsWith(`${disposition};`)).toBe(true);
	});

	test("non-ASCII filenames get an ASCII fallback and an RFC 5987 filename*", async () => {
		const attachment = await created({ filename: 'Über "Plan" 2025.txt', content: "AAEC" });
		const res = await file(attachment.name, { as: alice() });
		expect(res.headers.get("content-disposition")).toBe(`attachment; filename="_ber _Plan_ 2025.txt"; filename*=UTF-8''%C3%9Cber%20%22Plan%22%202025.txt`);
	});
});

describe("ranges and conditions", () => {
	const ranged = (range: string, extra: Record<string, string> = {}) => file(plain.name, { as: alice(), headers: { Range: range, ...extra } });

	test.each([
		["bytes=0-4", "01234", "bytes 0-4/20"],
		["bytes=15-", "fghij", "bytes 15-19/20"],
		["bytes=-3", "hij", "bytes 17-19/20"],
		["bytes=18-100", "ij", "bytes 18-19/20"],
		["bytes=-100", CONTENT.toString(), "bytes 0-19/20"]
	])("%s → 206 with Content-Range", async (range, body, contentRange) => {
		const res = await ranged(range);
		expect(res.status).toBe(206);
		expect(res.headers.get("content-range")).toBe(contentRange);
		expect(res.headers.get("content-length")).toBe(String(body.length));
		expect(await res.text()).toBe(body);
	});

	test.each(["bytes=20-", "bytes=25-30", "bytes=-0"])("%s is unsatisfiable: 416 with bytes */20", async range => {
		const res = await ranged(range);
		expect(res.status).toBe(416);
		expect(res.headers.get("content-range")).toBe("bytes */20");
	});

	test.each(["bytes=0-0,5-6", "bytes=9-1", "bytes=abc", "items=0-1", "bytes=-", "bytes=1-2-3"])("%s is ignored: 200 with the whole body", async range => {
		const res = await ranged(range);
		expect(res.status).toBe(200);
		expect(res.headers.get("content-range")).toBeNull();
		expect(await res.text()).toBe(CONTENT.toString());
	});

	test("If-Range with the current ETag honours the range; with another ETag the whole body is sent", async () => {
		expect((await ranged("bytes=0-1", { "If-Range": `"${SHA}"` })).status).toBe(206);
		const other = await ranged("bytes=0-1", { "If-Range": '"something-else"' });
		expect(other.status).toBe(200);
		expect(await other.text()).toBe(CONTENT.toString());
	});

	test("If-None-Match with the ETag answers 304 without a body; another ETag gets the file", async () => {
		const res = await file(plain.name, { as: alice(), headers: { "If-None-Match": `"other", "${SHA}"` } });
		expect(res.status).toBe(304);
		expect(res.headers.get("etag")).toBe(`"${SHA}"`);
		expect(await res.text()).toBe("");
		expect((await file(plain.name, { as: alice(), headers: { "If-None-Match": '"other"' } })).status).toBe(200);
	});
});

describe("files larger than the gateway asks for at a time (4 MiB windows, issue 19)", () => {
	const MiB = 1024 * 1024;
	const bytes = randomBytes(9 * MiB + 5);
	let large: { name: string };

	beforeAll(async () => {
		large = await created({ filename: "large.bin", content: bytes.toString("base64") });
	});

	test("the whole file comes byte for byte", async () => {
		const res = await file(large.name, { as: alice() });
		expect(res.status).toBe(200);
		expect(res.headers.get("content-length")).toBe(String(bytes.length));
		expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
	});

	test.each([
		[4 * MiB - 3, 8 * MiB + 2],
		[4 * MiB, 4 * MiB],
		[1, 9 * MiB + 4],
		[8 * MiB, 9 * MiB + 4]
	])("bytes=%i-%i spanning windows", async (start, end) => {
		const res = await file(large.name, { as: alice(), headers: { Range: `bytes=${start}-${end}` } });
		expect(res.status).toBe(206);
		expect(res.headers.get("content-range")).toBe(`bytes ${start}-${end}/${bytes.length}`);
		expect(Buffer.from(await res.arrayBuffer()).equals(bytes.subarray(start, end + 1))).toBe(true);
	});
});

describe("who may read the bytes", () => {
	test("an unlinked attachment: its creator and ADMINs; another user PERMISSION_DENIED; unknown NOT_FOUND", async () => {
		expect((await file(plain.name, { as: admin() })).status).toBe(200);
		await expectStatus(await file(plain.name, { as: bob() }), 403, 7);
		await expectStatus(await file("attachments/missing", { as: alice() }), 404, 5);
	});

	test("anonymous callers on a private instance get UNAUTHENTICATED, even for unknown ids; an invalid Bearer token too", async () => {
		await expectStatus(await file(plain.name), 401, 16);
		await expectStatus(await file("attachments/missing"), 401, 16);
		await expectStatus(await file(plain.name, { headers: { Authorization: "Bearer not-a-token" } }), 401, 16);
	});

	test("the refresh cookie identifies a browser that sends no access token", async () => {
		const res = await file(plain.name, { headers: { Cookie: alice().cookie } });
		expect(res.status).toBe(200);
		await expectStatus(await file(plain.name, { headers: { Cookie: bob().cookie } }), 403, 7);
		await expectStatus(await file(plain.name, { headers: { Cookie: "memos_refresh=forged" } }), 401, 16);
	});

	test("a rotated refresh cookie no longer identifies anyone; its successor does", async () => {
		const session = await signIn(app().baseUrl, "user1");
		const refreshed = await fetch(`${app().baseUrl}/api/v1/auth/refresh`, { method: "POST", headers: { Cookie: session.cookie }, body: "{}" });
		expect(refreshed.status).toBe(200);
		const successor = refreshCookieOf(refreshed);
		if (successor === undefined) throw new Error("RefreshToken set no cookie");
		await expectStatus(await file(plain.name, { headers: { Cookie: session.cookie } }), 401, 16);
		expect((await file(plain.name, { headers: { Cookie: successor } })).status).toBe(200);
	});

	test("a refresh cookie identifies its user until it expires, not after", async () => {
		const { cookie } = await signIn(app().baseUrl, "user1");
		const auth = app().node.broker.getLocalService("auth") as unknown as { clock: () => number };
		const realClock = auth.clock;
		try {
			auth.clock = () => Date.now() + REFRESH_TTL_MS - 60_000;
			expect((await file(plain.name, { headers: { Cookie: cookie } })).status).toBe(200);
			auth.clock = () => Date.now() + REFRESH_TTL_MS;
			await expectStatus(await file(plain.name, { headers: { Cookie: cookie } }), 401, 16);
		} finally {
			auth.clock = realClock;
		}
	});

	test("an external link has no bytes here: NOT_FOUND", async () => {
		const link = await created({ filename: "remote.png", externalLink: "https://example.com/remote.png" });
		await expectStatus(await file(link.name, { as: alice() }), 404, 5);
	});

	test("a share_token that does not resolve to a live share of the memo is NOT_FOUND, whoever asks", async () => {
		await expectStatus(await file(plain.name, { as: alice(), suffix: "?share_token=Vb7Hk2LmQ9xTz4WcN8pRs3" }), 404, 5);
		await expectStatus(await file(plain.name, { suffix: "?share_token=Vb7Hk2LmQ9xTz4WcN8pRs3" }), 404, 5);
	});

	test("a linked attachment follows its memo: PUBLIC is readable anonymously on a public instance and cached publicly", async () => {
		const memo = await api.request<{ name: string }>("POST", "/memos", { as: alice(), body: { content: "public", visibility: "PUBLIC" } });
		const attachment = await created({ filename: "shared.txt", content: "AAEC", memo: memo.body.name });
		expect((await file(attachment.name, { as: bob() })).status).toBe(200);
		await expectStatus(await file(attachment.name), 401, 16);
		await api.setAccessMode(admin(), "PUBLIC");
		try {
			const anonymous = await file(attachment.name);
			expect(anonymous.status).toBe(200);
			expect(anonymous.headers.get("cache-control")).toBe("public, no-cache");
			await expectStatus(await file(plain.name), 401, 16);
		} finally {
			await api.setAccessMode(admin(), "PRIVATE");
		}
	});

	test("a PRIVATE memo's attachment is PERMISSION_DENIED to others; a soft-deleted memo's is NOT_FOUND", async () => {
		const memo = await api.request<{ name: string }>("POST", "/memos", { as: alice(), body: { content: "private" } });
		const attachment = await created({ filename: "secret.txt", content: "AAEC", memo: memo.body.name });
		await expectStatus(await file(attachment.name, { as: bob() }), 403, 7);
		expect((await api.request("DELETE", `/${memo.body.name}`, { as: alice() })).status).toBe(200);
		await expectStatus(await file(attachment.name, { as: alice() }), 404, 5);
	});
});

describe("aborted downloads (issue 12)", () => {
	/** The blob files this process holds open (the document database under the data directory stays open by design). */
	async function openDataFiles(): Promise<string[]> {
		const blobDir = join(app().dataDir, "blobs");
		const open: string[] = [];
		for (const fd of await readdir("/proc/self/fd")) {
			const target = await readlink(`/proc/self/fd/${fd}`).catch(() => "");
			if (target.startsWith(blobDir)) open.push(target);
		}
		return open;
	}

	/** Reads the first bytes of the file, then drops the connection. */
	function abortedDownload(name: string, session: Session): Promise<void> {
		return new Promise((resolve, reject) => {
			const req = request(`${app().baseUrl}/file/${name}`, { headers: { Authorization: `Bearer ${session.accessToken}` } }, res => {
				if (res.statusCode !== 200) return reject(new Error(`download answered ${res.statusCode}`));
				res.once("data", () => {
					req.destroy();
					resolve();
				});
			});
			req.on("error", err => (req.destroyed ? undefined : reject(err)));
			req.end();
		});
	}

	test("150 downloads dropped after their first bytes leave no file open", async () => {
		// Larger than the socket buffers, so that no download can finish before it is dropped.
		const big = await created({ filename: "big.bin", content: randomBytes(12 * 1024 * 1024).toString("base64") });
		for (let round = 0; round < 15; round++) await Promise.all(Array.from({ length: 10 }, () => abortedDownload(big.name, alice())));
		// Each dropped download closes its file as soon as the server sees the connection gone.
		while ((await openDataFiles()).length > 0) await new Promise(resolve => setTimeout(resolve, 50));
		expect(await openDataFiles()).toEqual([]);
		// The server still serves the file whole.
		const whole = await file(big.name, { as: alice() });
		expect((await whole.arrayBuffer()).byteLength).toBe(12 * 1024 * 1024);
	}, 60000);
});
