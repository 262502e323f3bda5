import { createHash } from "node:crypto";
import type { EmbeddedApp } from "../support/embedded-app.js";
import { authHeaders, startPopulatedApp, type Population, type Session } from "../support/users.js";

/** `GET`/`HEAD /file/users/{username}/avatar` (contract 4.8, 2.2): avatars stored as data URIs. */

let app: EmbeddedApp & Population;

// A PNG signature and IHDR start: what matters is that the bytes come back exactly.
const IMAGE = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex");
const ETAG = `"${createHash("sha256").update(IMAGE).digest("hex")}"`;

beforeAll(async () => {
	app = await startPopulatedApp(2);
	await setAvatar(alice(), `data:image/png;base64,${IMAGE.toString("base64")}`);
	await setAvatar(bob(), "https://example.com/bob.png");
});

afterAll(async () => {
	await app.stop();
});

const alice = () => app.users[0];
const bob = () => app.users[1];

async function setAvatar(session: Session, avatarUrl: string): Promise<void> {
	const res = await fetch(`${app.baseUrl}/api/v1/users/${session.user.username}?updateMask=avatar_url`, {
		method: "PATCH",
		headers: authHeaders(session),
		body: JSON.stringify({ avatarUrl })
	});
	if (res.status !== 200) throw new Error(`UpdateUser answered ${res.status}: ${await res.text()}`);
	expect(((await res.json()) as { avatarUrl: string }).avatarUrl).toBe(avatarUrl.startsWith("data:") ? `/file/users/${session.user.username}/avatar` : avatarUrl);
}

async function setAccessMode(mode: "PUBLIC" | "PRIVATE"): Promise<void> {
	const res = await fetch(`${app.baseUrl}/api/v1/instance/settings/ACCESS`, {
		method: "PATCH",
		headers: authHeaders(app.admin),
		body: JSON.stringify({ accessSetting: { accessMode: `INSTANCE_ACCESS_MODE_${mode}` } })
	});
	if (res.status !== 200) throw new Error(`UpdateInstanceSetting answered ${res.status}: ${await res.text()}`);
}

function avatar(username: string, options: { as?: Session; headers?: Record<string, string>; method?: string } = {}) {
	const headers: Record<string, string> = { ...options.headers };
	if (options.as) headers.Authorization = `Bearer ${options.as.accessToken}`;
	return fetch(`${app.baseUrl}/file/users/${username}/avatar`, { method: options.method ?? "GET", headers });
}

async function expectStatus(res: Response, status: number, code: number): Promise<void> {
	expect(res.status).toBe(status);
	expect(await res.json()).toMatchObject({ code, details: [] });
}

describe("serving a stored avatar", () => {
	test("the decoded bytes with their type, length, nosniff and a strong ETag, to any signed-in user", async () => {
		for (const as of [alice(), bob(), app.admin]) {
			const res = await avatar(alice().user.username, { as });
			expect(res.status).toBe(200);
			expect(Object.fromEntries(res.headers)).toMatchObject({
				"content-type": "image/png",
				"content-length": String(IMAGE.length),
				"x-content-type-options": "nosniff",
				etag: ETAG
			});
			expect(Buffer.from(await res.arrayBuffer()).equals(IMAGE)).toBe(true);
		}
	});

	test("HEAD: the same headers, no body", async () => {
		const res = await avatar(alice().user.username, { as: bob(), method: "HEAD" });
		expect(res.status).toBe(200);
		expect(res.headers.get("content-length")).toBe(String(IMAGE.length));
		expect(res.headers.get("etag")).toBe(ETAG);
		expect((await res.arrayBuffer()).byteLength).toBe(0);
	});

	test("If-None-Match with the ETag (or *) answers 304 without a body; another tag gets the image", async () => {
		for (const tag of [ETAG, `W/${ETAG}`, `"other", ${ETAG}`, "*"]) {
			const res = await avatar(alice().user.username, { as: bob(), headers: { "If-None-Match": tag } });
			expect(res.status).toBe(304);
			expect(res.headers.get("etag")).toBe(ETAG);
			expect((await res.arrayBuffer()).byteLength).toBe(0);
		}
		expect((await avatar(alice().user.username, { as: bob(), headers: { "If-None-Match": '"other"' } })).status).toBe(200);
	});

	test("a new avatar gets a new ETag", async () => {
		const other = Buffer.from("GIF89a\u0001\u0000\u0001\u0000", "latin1");
		await setAvatar(bob(), `data:image/gif;base64,${other.toString("base64")}`);
		try {
			const res = await avatar(bob().user.username, { as: alice(), headers: { "If-None-Match": ETAG } });
			expect(res.status).toBe(200);
			expect(res.headers.get("content-type")).toBe("image/gif");
			expect(res.headers.get("etag")).toBe(`"${createHash("sha256").update(other).digest("hex")}"`);
			expect(Buffer.from(await res.arrayBuffer()).equals(other)).toBe(true);
		} finally {
			await setAvatar(bob(), "https://example.com/bob.png");
		}
	});

	test("the refresh cookie identifies a browser that sends no access token", async () => {
		expect((await avatar(alice().user.username, { headers: { Cookie: bob().cookie } })).status).toBe(200);
		await expectStatus(await avatar(alice().user.username, { headers: { Cookie: "memos_refresh=forged" } }), 401, 16);
	});
});

describe("what has no stored avatar: NOT_FOUND", () => {
	test("an avatar that is a URL, no avatar, an unknown user", async () => {
		await expectStatus(await avatar(bob().user.username, { as: alice() }), 404, 5);
		await expectStatus(await avatar(app.admin.user.username, { as: alice() }), 404, 5);
		await expectStatus(await avatar("nobody", { as: alice() }), 404, 5);
		expect((await avatar("nobody", { as: alice(), method: "HEAD" })).status).toBe(404);
	});
});

describe("anonymous callers (contract 2.2, as GetUser)", () => {
	test("on a private instance: UNAUTHENTICATED before existence; an invalid Bearer token too", async () => {
		await expectStatus(await avatar(alice().user.username), 401, 16);
		await expectStatus(await avatar("nobody"), 401, 16);
		await expectStatus(await avatar(alice().user.username, { headers: { Authorization: "Bearer not-a-token" } }), 401, 16);
	});

	test("on a public instance: served; unknown users NOT_FOUND", async () => {
		await setAccessMode("PUBLIC");
		try {
			const res = await avatar(alice().user.username);
			expect(res.status).toBe(200);
			expect(Buffer.from(await res.arrayBuffer()).equals(IMAGE)).toBe(true);
			await expectStatus(await avatar("nobody"), 404, 5);
			await expectStatus(await avatar(alice().user.username, { headers: { Authorization: "Bearer not-a-token" } }), 401, 16);
		} finally {
			await setAccessMode("PRIVATE");
		}
	});
});
