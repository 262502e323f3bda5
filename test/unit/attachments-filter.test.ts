import { ServiceError } from "../../shared/errors.js";
import { useFilterStore } from "../support/filter-store.js";
import type { AttachmentDoc } from "../../services/attachments/attachment-doc.js";
import { compileAttachmentFilter, parseAttachmentFilter } from "../../services/attachments/filter/attachment-filter.js";

/** The attachment filter of contract 6.3, compiled to one query and run by the SQLite store. */

const NOW = 1_750_000_000_000;

function attachment(id: string, fields: Partial<AttachmentDoc>): AttachmentDoc {
	return {
		_id: id,
		seq: Number(id.slice(1)),
		creatorId: "u1",
		filename: "",
		type: "application/octet-stream",
		size: 1,
		externalLink: "",
		sha256: "",
		blobKey: null,
		memoId: null,
		memoPosition: 0,
		spaceId: null,
		memoDeleted: false,
		createTime: NOW,
		...fields
	};
}

const DOCS = [
	attachment("a1", { filename: "Straße.PDF", type: "application/pdf", createTime: NOW - 3_600_000 }),
	attachment("a2", { filename: "photo.png", type: "image/png", memoId: "m1", createTime: NOW - 86_400_000 * 2 }),
	attachment("a3", { filename: "K.txt", type: "text/plain", memoId: "m2", spaceId: "s1", createTime: 1_735_689_600_500 }),
	attachment("a4", { filename: "100%_done.txt", type: "text/plain", createTime: NOW })
];

const attachments = useFilterStore("attachments", DOCS);

async function select(text: string): Promise<string[]> {
	const filter = parseAttachmentFilter(text);
	const query = compileAttachmentFilter(filter, NOW);
	const own = filter.spaceId === undefined ? {} : { spaceId: filter.spaceId };
	return (await attachments().find({ $and: [own, query] }, { sort: { seq: 1 } })).map(doc => doc._id);
}

test.each([
	['filename.contains("STRASSE")', []],
	['filename.contains("straße")', ["a1"]],
	['filename:"k"', ["a3"]],
	['filename.contains("K")', ["a3"]],
	['filename.contains("%_")', ["a4"]],
	['filename.endsWith(".pdf")', ["a1"]],
	['filename > "K.txt"', ["a1", "a2"]],
	['filename <= "K.txt"', ["a3", "a4"]],
	// Byte order: upper-case letters and digits sort before lower-case ones.
	['!(filename < "a")', ["a2"]],
	['mime_type != "text/plain"', ["a1", "a2"]],
	['!(mime_type in ["text/plain"])', ["a1", "a2"]],
	["create_time == 1735689600", ["a3"]],
	["create_time != 1735689600", ["a1", "a2", "a4"]],
	["create_time >= now - duration(\"1h30m\")", ["a1", "a4"]],
	["create_time < now() - 86400", ["a2", "a3"]],
	['create_time > timestamp("2025-01-01T00:00:00Z")', ["a1", "a2", "a4"]],
	["!(memo_id == null) || filename.startsWith(\"100\")", ["a2", "a3", "a4"]],
	['memo_id in ["memos/m1", "m2"]', ["a2", "a3"]],
	['null == memo_id && "100%_done.txt" == filename', ["a4"]],
	['space == "spaces/s1"', ["a3"]],
	['mime_type.startsWith("text/") && space == null', ["a4"]],
	["true", ["a1", "a2", "a3", "a4"]],
	["false || !true", []]
])("%s", async (text, expected) => {
	expect(await select(text)).toEqual(expected);
});

test("the space term is taken out of the condition", () => {
	expect(parseAttachmentFilter('space == "spaces/s1" && filename == "a"').spaceId).toBe("s1");
	expect(parseAttachmentFilter("space == null").spaceId).toBeNull();
	expect(parseAttachmentFilter('filename == "a"').spaceId).toBeUndefined();
});

test.each([
	["!(space == null)", /space/],
	["space != null", /space/],
	['space == "spaces/a" || memo_id == null', /space/],
	['space == "spaces/a" && space == null', /at most one space/],
	['space == "spaces/"', /space must be compared/],
	['memo_id > "a"', /ordering operators are not supported on memo_id/],
	['memo_id in [null]', /memo_id must be compared/],
	['filename == "a" || 1', /condition/],
	['filename.size() > 1', /unsupported/],
	["create_time > duration(\"1h\")", /unsupported function duration|time/],
	["create_time == now * 2", /unsupported expression|arithmetic/],
	['filename == r"raw"', /raw string/],
	["filename == b'x'", /bytes/],
	['filename == """x"""', /triple-quoted/],
	["filename == 1.5", /literals/],
	['timestamp("nope") < create_time', /RFC 3339/],
	["create_time > timestamp(999999999999999)", /out of range/],
	['create_time > now - duration("1y")', /invalid duration/],
	['name == "x"', /unknown identifier name/]
])("%s is INVALID_ARGUMENT", (text, message) => {
	let caught: unknown;
	try {
		parseAttachmentFilter(text);
	} catch (err) {
		caught = err;
	}
	expect(caught).toBeInstanceOf(ServiceError);
	expect(caught).toMatchObject({ type: "INVALID_ARGUMENT", message: expect.stringMatching(message) });
});
