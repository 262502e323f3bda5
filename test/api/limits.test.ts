import { signIn, signUp } from "../support/users.js";
import { usePopulatedApp } from "../support/populated-app.js";

/**
 * Contract 14 on the accepting side: the largest allowed value succeeds (the refusing side is
 * tested with each endpoint). The other limits are tested at their largest value beside their
 * endpoint: memo content (memos-crud), attachment size (attachments-crud), upload chunk and open
 * sessions (upload), batch delete (attachments-crud), link URL, link batch, page bytes,
 * redirects, title and description (link-metadata), settings batch (instance-settings),
 * reaction type (memo-reactions), space name and description (spaces), transcription audio and
 * filename (ai-transcribe), access token (auth-refresh), refresh family (file-route), reuse
 * grace (unit/auth-tokens).
 */

const { app, api, users: [alice] } = usePopulatedApp(1);

const MiB = 1024 * 1024;

describe("page size: 1000 at most, larger sizes coerced (contract 1.7)", () => {
	beforeAll(async () => {
		for (let i = 0; i < 60; i++) {
			const res = await api.create(alice(), { content: `paged ${i} #paging` });
			if (res.status !== 200) throw new Error(`CreateMemo answered ${res.status}: ${res.text}`);
		}
	});

	test.each(["1000", "1001", "2147483647"])("pageSize %s returns every one of 60 memos in one page", async pageSize => {
		const res = await api.list(alice(), { pageSize, filter: '"paging" in tags' });
		expect(res.status).toBe(200);
		expect({ count: res.body.memos.length, next: res.body.nextPageToken ?? "" }).toEqual({ count: 60, next: "" });
	});
});

describe("client-chosen ids and usernames of 36 characters (contract 1.5)", () => {
	const id = `a${"-".repeat(34)}z`;

	test("a memo, an attachment and a space with a 36-character id", async () => {
		expect((await api.create(alice(), { content: "long id" }, id)).body.name).toBe(`memos/${id}`);
		const attachment = await api.request("POST", "/attachments", { as: alice(), query: { attachmentId: id }, body: { filename: "a.txt", content: "AAEC" } });
		expect(attachment.body.name).toBe(`attachments/${id}`);
		const space = await api.request("POST", "/spaces", { as: alice(), query: { spaceId: id }, body: { displayName: "Long" } });
		expect(space.body.name).toBe(`spaces/${id}`);
	});

	test("a user with a 36-character username signs up and in", async () => {
		const username = "U".repeat(36);
		expect((await signUp(app().baseUrl, username)).name).toBe(`users/${username}`);
		expect((await signIn(app().baseUrl, username)).user.username).toBe(username);
	});
});

test("a filter of exactly 8192 bytes is evaluated (contract 6.1)", async () => {
	const head = 'content.contains("';
	const filter = `${head}${"q".repeat(8192 - head.length - 2)}")`;
	expect(Buffer.byteLength(filter)).toBe(8192);
	const res = await api.list(alice(), { filter });
	expect({ status: res.status, memos: res.body.memos }).toEqual({ status: 200, memos: [] });
});

test("a filename of 255 bytes and a type of 255 characters are stored (contract 4.6)", async () => {
	const filename = `${"é".repeat(125)}a.txt`;
	const type = `text/${"x".repeat(250)}`;
	expect([Buffer.byteLength(filename), type.length]).toEqual([255, 255]);
	const res = await api.request("POST", "/attachments", { as: alice(), body: { filename, type, content: "AAEC" } });
	expect(res.status).toBe(200);
	expect(res.body).toMatchObject({ filename, type });
});

describe("request body of CreateAttachment at the gateway: the upload limit in base64 and 64 KiB (contract 19)", () => {
	/** A JSON CreateAttachment body of exactly `bytes` bytes: base64 content, then JSON whitespace. */
	function bodyOf(bytes: number): string {
		const head = '{"filename":"big.bin","content":"';
		const tail = '"}';
		const room = bytes - head.length - tail.length;
		const content = "A".repeat(room - (room % 4));
		return head + content + '"' + " ".repeat(room % 4) + "}";
	}

	const post = (body: string) => api.request("POST", "/attachments", { as: alice(), body });
	const limit = (30 * MiB * 4) / 3 + 64 * 1024;

	test("a body of exactly the limit reaches the service, which applies its own upload limit", async () => {
		const res = await post(bodyOf(limit));
		expect(res.body).toMatchObject({ code: 3, message: expect.stringContaining("upload limit") });
	});

	test("one byte more is refused at the gateway", async () => {
		const res = await post(bodyOf(limit + 1));
		expect(res.body).toEqual({ code: 3, message: `request body is larger than the ${limit} bytes this operation takes`, details: [] });
	});
});
