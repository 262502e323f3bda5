import type { Session } from "../support/users.js";
import type { Answer } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

/** ListAttachments (contract 8.1): own attachments, the filter of 6.3, orderBy of 6.4, pages of 1.7. */

const { api, admin, users: [alice, bob] } = usePopulatedApp(2);
let memoName: string;
const ids: Record<string, string> = {};

interface ListAnswer {
	attachments: { name: string; filename: string; type: string; size: string }[];
	nextPageToken: string;
}

async function create(as: Session, attachment: Record<string, unknown>, id: string): Promise<void> {
	const res = await api.request("POST", "/attachments", { as, body: attachment, query: { attachmentId: id } });
	if (res.status !== 200) throw new Error(`CreateAttachment answered ${res.status}: ${res.text}`);
	ids[id] = `attachments/${id}`;
}

beforeAll(async () => {
	const memo = await api.request<{ name: string }>("POST", "/memos", { as: alice(), body: { content: "with files" }, query: { memoId: "m1" } });
	memoName = memo.body.name;
	await create(alice(), { filename: "report-2025.pdf", content: "AAAA" }, "a-report");
	await create(alice(), { filename: "photo.png", content: "AAAAAAAA", memo: memoName }, "a-photo");
	await create(alice(), { filename: "Notes.TXT", type: "text/plain", content: "AA==" }, "a-notes");
	await create(alice(), { filename: "clip.jpeg", content: "AAAAAAAAAAAA" }, "a-clip");
	await create(bob(), { filename: "bobs-report.pdf", content: "AAAA" }, "b-report");
});

function list(as: Session, query: Record<string, string> = {}): Promise<Answer<ListAnswer>> {
	return api.request<ListAnswer>("GET", "/attachments", { as, query });
}

async function names(query: Record<string, string>, as = alice()): Promise<string[]> {
	const res = await list(as, query);
	if (res.status !== 200) throw new Error(`ListAttachments answered ${res.status}: ${res.text}`);
	return res.body.attachments.map(a => a.name.replace("attachments/", ""));
}

test("lists only the caller's own attachments, newest first, also for ADMINs", async () => {
	expect(await names({})).toEqual(["a-clip", "a-notes", "a-photo", "a-report"]);
	expect(await names({}, bob())).toEqual(["b-report"]);
	expect(await names({}, admin())).toEqual([]);
	const res = await list(alice());
	expect(res.body.nextPageToken).toBe("");
});

test.each([
	['filename == "photo.png"', ["a-photo"]],
	['filename = "photo.png"', ["a-photo"]],
	['filename != "photo.png"', ["a-clip", "a-notes", "a-report"]],
	['filename < "p"', ["a-clip", "a-notes"]],
	['filename >= "photo.png"', ["a-photo", "a-report"]],
	['filename:"REPORT"', ["a-report"]],
	['filename.contains("o")', ["a-notes", "a-photo", "a-report"]],
	['filename.startsWith("notes")', ["a-notes"]],
	['filename.endsWith(".PDF")', ["a-report"]],
	['filename in ["photo.png", "clip.jpeg"]', ["a-clip", "a-photo"]],
	['mime_type = "image/png"', ["a-photo"]],
	['mime_type in ["image/png", "image/jpeg"]', ["a-clip", "a-photo"]],
	['mime_type.startsWith("image/") && !(filename == "clip.jpeg")', ["a-photo"]],
	['mime_type == "application/pdf" || filename:"notes"', ["a-notes", "a-report"]],
	["memo_id == null", ["a-clip", "a-notes", "a-report"]],
	["memo_id != null", ["a-photo"]],
	['memo_id == "m1"', ["a-photo"]],
	['memo_id == "memos/m1"', ["a-photo"]],
	['memo_id in ["m1", "other"]', ["a-photo"]],
	['memo_id != "m1"', ["a-clip", "a-notes", "a-report"]],
	["create_time >= now - duration(\"24h\")", ["a-clip", "a-notes", "a-photo", "a-report"]],
	["create_time > 1735689600", ["a-clip", "a-notes", "a-photo", "a-report"]],
	['create_time < timestamp("2025-01-01T00:00:00Z")', []],
	["space == null", ["a-clip", "a-notes", "a-photo", "a-report"]],
	['space == "spaces/3f2b8c1e" && mime_type.startsWith("image/")', []],
	["  ", ["a-clip", "a-notes", "a-photo", "a-report"]]
])("filter %s", async (filter, expected) => {
	expect(await names({ filter })).toEqual(expected);
});

test.each([
	"!(space == null)",
	"space != null",
	'space == "spaces/a" || memo_id == null',
	'memo_id > "a"',
	"space == null && space == null",
	'!(space == "spaces/a")',
	'space in ["spaces/a"]',
	'space == "users/a"',
	"filename",
	'filename == 1',
	'mime_type == null',
	"create_time > \"yesterday\"",
	'unknown == "x"',
	'filename.matches("a")',
	'size > 1',
	"filename == filename",
	'filename == "a" &&',
	"1",
	`filename == "${"x".repeat(8200)}"`
])("filter %s is INVALID_ARGUMENT", async filter => {
	const res = await list(alice(), { filter });
	expect(res.status).toBe(400);
	expect(res.body).toMatchObject({ code: 3, details: [] });
});

test.each([
	["filename", ["a-report", "a-photo", "a-clip", "a-notes"]],
	// Byte order: upper-case letters sort before lower-case ones.
	["filename asc", ["a-notes", "a-clip", "a-photo", "a-report"]],
	["size desc", ["a-clip", "a-photo", "a-report", "a-notes"]],
	["mime_type asc, create_time asc", ["a-report", "a-clip", "a-photo", "a-notes"]],
	["create_time ASC", ["a-report", "a-photo", "a-notes", "a-clip"]]
])("orderBy %s", async (orderBy, expected) => {
	expect(await names({ orderBy })).toEqual(expected);
});

test.each(["name", "filename up", "create_time desc,", "size, size asc", "filename asc desc"])("orderBy %s is INVALID_ARGUMENT", async orderBy => {
	const res = await list(alice(), { orderBy });
	expect(res.status).toBe(400);
	expect(res.body).toMatchObject({ code: 3 });
});

test("pages: tokens continue the same query; a token with another filter or a forged one is INVALID_ARGUMENT", async () => {
	const query = { orderBy: "filename asc", filter: 'filename != "none"' };
	const first = await list(alice(), { ...query, pageSize: "3" });
	expect(first.body.attachments.map(a => a.filename)).toEqual(["Notes.TXT", "clip.jpeg", "photo.png"]);
	expect(first.body.nextPageToken).not.toBe("");
	const second = await list(alice(), { ...query, pageSize: "3", pageToken: first.body.nextPageToken });
	expect(second.body.attachments.map(a => a.filename)).toEqual(["report-2025.pdf"]);
	expect(second.body.nextPageToken).toBe("");
	const exact = await list(alice(), { pageSize: "4" });
	expect(exact.body.nextPageToken).toBe("");
	expect((await list(alice(), { ...query, filter: "", pageToken: first.body.nextPageToken })).status).toBe(400);
	expect((await list(bob(), { ...query, pageToken: first.body.nextPageToken })).status).toBe(400);
	expect((await list(alice(), { pageToken: "garbage!" })).status).toBe(400);
	expect((await list(alice(), { pageSize: "many" })).status).toBe(400);
	expect((await list(alice(), { pageSize: "-5" })).body.attachments).toHaveLength(4);
});

test("anonymous callers are UNAUTHENTICATED", async () => {
	const res = await list(null as unknown as Session);
	expect(res.status).toBe(401);
});
