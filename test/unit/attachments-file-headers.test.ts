import fc from "fast-check";
import type { FileInfo } from "../../services/attachments/attachments.contract.js";
import { contentDisposition, notModified, readRange, servedContentType } from "../../services/gateway/file-headers.js";
import { DEFAULT_TYPE, parseExternalLink, parseFilename, parseMemoRef, parseType, typeFromFilename, uploadLimitBytes } from "../../services/attachments/attachment-fields.js";
import { newUploadId, nodeOfUploadId } from "../../services/attachments/upload/upload-sessions.js";
import { codeOf, expectInvalidArgument } from "../support/service-errors.js";

const INFO: FileInfo = { size: 1234, sha256: "ab".repeat(32), type: "image/png", filename: "a.png", createTime: Date.UTC(2025, 2, 1, 9, 30) };
const ETAG = `"${INFO.sha256}"`;

describe("Range (contract 8.5)", () => {
	test.each([
		["bytes=0-499", { kind: "partial", start: 0, end: 499 }],
		["bytes=500-", { kind: "partial", start: 500, end: 1233 }],
		["bytes=-500", { kind: "partial", start: 734, end: 1233 }],
		["bytes=1233-1233", { kind: "partial", start: 1233, end: 1233 }],
		["bytes=1000-99999", { kind: "partial", start: 1000, end: 1233 }],
		["bytes=1234-", { kind: "unsatisfiable" }],
		["bytes=-0", { kind: "unsatisfiable" }],
		["bytes=0-0,5-6", { kind: "whole" }],
		["bytes=9-1", { kind: "whole" }],
		["bytes=abc", { kind: "whole" }],
		["bytes=-", { kind: "whole" }],
		["octets=0-1", { kind: "whole" }]
	])("%s", (header, expected) => {
		expect(readRange(header, undefined, INFO)).toEqual(expected);
	});

	test("If-Range: the current ETag or Last-Modified keeps the range; anything else asks for the whole body", () => {
		expect(readRange("bytes=0-1", ETAG, INFO).kind).toBe("partial");
		expect(readRange("bytes=0-1", new Date(INFO.createTime).toUTCString(), INFO).kind).toBe("partial");
		expect(readRange("bytes=0-1", '"other"', INFO).kind).toBe("whole");
		expect(readRange("bytes=0-1", `W/${ETAG}`, INFO).kind).toBe("whole");
	});

	test("a partial answer always lies inside the object", () => {
		fc.assert(
			fc.property(fc.nat(10_000), fc.string(), (size, tail) => {
				const answer = readRange(`bytes=${tail}`, undefined, { ...INFO, size });
				if (answer.kind === "partial") return answer.start >= 0 && answer.start <= answer.end && answer.end < size;
				return true;
			})
		);
	});
});

test("If-None-Match compares weakly and accepts lists and *", () => {
	expect(notModified(ETAG, ETAG)).toBe(true);
	expect(notModified(`"x", W/${ETAG}`, ETAG)).toBe(true);
	expect(notModified("*", ETAG)).toBe(true);
	expect(notModified('"x"', ETAG)).toBe(false);
	expect(notModified(undefined, ETAG)).toBe(false);
});

test("active content is never served as itself; text gets a charset", () => {
	expect(servedContentType("text/html")).toBe("application/octet-stream");
	expect(servedContentType("image/svg+xml")).toBe("application/octet-stream");
	expect(servedContentType("text/csv")).toBe("text/csv; charset=utf-8");
	expect(servedContentType("image/webp")).toBe("image/webp");
});

test("Content-Disposition escapes quotes, backslashes and non-ASCII in the fallback and percent-encodes filename*", () => {
	expect(contentDisposition("application/octet-stream", 'a"b\\c 100%.bin')).toBe(`attachment; filename="a_b_c 100_.bin"; filename*=UTF-8''a%22b%5Cc%20100%25.bin`);
	// A name stored before lone surrogates were refused at input still gets a header (U+FFFD in its place).
	expect(contentDisposition("application/octet-stream", "a\ud800.bin")).toBe(`attachment; filename="a_.bin"; filename*=UTF-8''a%EF%BF%BD.bin`);
	expect(contentDisposition("audio/mpeg", "日本's (1).mp3")).toBe(`inline; filename="__'s (1).mp3"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%27s%20%281%29.mp3`);
});

describe("attachment fields (contract 4.6, 8.2)", () => {
	test.each(["a/b", "a\\b", "a\0b", ".", "..", " a", "a ", "a.", "x".repeat(256), ""])("filename %j is refused", name => {
		expect(() => parseFilename(name, "filename")).toThrow(expect.objectContaining({ type: "INVALID_ARGUMENT" }));
	});

	test("filenames of 255 bytes with inner dots and spaces are accepted", () => {
		expect(parseFilename(`${"é".repeat(125)}.txt`, "f")).toHaveLength(129);
		expect(Buffer.byteLength(parseFilename(`${"é".repeat(125)}.txt5`, "f"))).toBe(255);
		expect(() => parseFilename(`${"é".repeat(125)}.txt56`, "f")).toThrow(expect.objectContaining({ type: "INVALID_ARGUMENT", message: "f is longer than 255 bytes" }));
		expect(parseFilename("my report.v2.pdf", "f")).toBe("my report.v2.pdf");
	});

	test("types lose their parameters and case; non media types are refused", () => {
		expect(parseType("Image/PNG; q=1", "type")).toBe("image/png");
		expect(parseType("application/vnd.ms-excel", "type")).toBe("application/vnd.ms-excel");
		expect(parseType("", "type")).toBe("");
		for (const bad of ["image", "image/", "/png", "image/png/x", "ima ge/png", "*/*", 7]) {
			expect(() => parseType(bad, "type")).toThrow(expect.objectContaining({ type: "INVALID_ARGUMENT" }));
		}
	});

	test("the upload limit is the STORAGE setting in MiB, 0 meaning 30", () => {
		expect(uploadLimitBytes({ uploadSizeLimitMb: 1 })).toBe(1024 * 1024);
		expect(uploadLimitBytes({ uploadSizeLimitMb: 0 })).toBe(30 * 1024 * 1024);
		expect(uploadLimitBytes({})).toBe(30 * 1024 * 1024);
		expect(uploadLimitBytes({ uploadSizeLimitMb: -5 })).toBe(30 * 1024 * 1024);
		expect(uploadLimitBytes({ uploadSizeLimitMb: "not a number" })).toBe(30 * 1024 * 1024);
		expect(uploadLimitBytes({ uploadSizeLimitMb: "2" })).toBe(2 * 1024 * 1024);
	});

	test("each refusal names the field and the rule", () => {
		expectInvalidArgument(() => parseFilename("", "attachment.filename"), "attachment.filename is required");
		expectInvalidArgument(() => parseFilename("é".repeat(128), "f"), "f is longer than 255 bytes");
		expectInvalidArgument(() => parseFilename("a/b", "f"), 'f must not contain "/", "\\" or NUL');
		expectInvalidArgument(() => parseFilename(".a", "f"), 'f must not start or end with a space or "."');
		expectInvalidArgument(() => parseType("image", "attachment.type"), 'attachment.type must be a media type such as "image/png"');
	});

	test("a type of 255 characters is accepted, 256 refused; parameters count towards it", () => {
		const type = `application/${"x".repeat(243)}`;
		expect(parseType(type, "type")).toBe(type);
		expectInvalidArgument(() => parseType(`${type}x`, "type"), "type is longer than 255 characters");
		expectInvalidArgument(() => parseType(`image/png;${"q".repeat(250)}`, "type"), "longer than 255");
		expect(parseType(`image/png;${"q".repeat(245)}`, "type")).toBe("image/png");
	});

	test("the type of a filename comes from its extension; none is the empty string", () => {
		expect(DEFAULT_TYPE).toBe("application/octet-stream");
		expect(typeFromFilename("photo.PNG")).toBe("image/png");
		expect(typeFromFilename("notes.md")).toBe("text/markdown");
		expect(typeFromFilename("no-extension")).toBe("");
	});

	test("external links are http(s) URLs with a host; unset is none", () => {
		expect(parseExternalLink(undefined, "l")).toBe("");
		expect(parseExternalLink("", "l")).toBe("");
		expect(parseExternalLink("https://example.com/a.png", "l")).toBe("https://example.com/a.png");
		expect(parseExternalLink("http://example.com", "l")).toBe("http://example.com");
		for (const bad of [7, "not a url", "ftp://example.com/a", "file:///etc/passwd", "http://"]) {
			expectInvalidArgument(() => parseExternalLink(bad, "attachment.externalLink"), "attachment.externalLink must be an http or https URL");
		}
	});

	test("an external link is at most 2048 bytes; a filename with a lone surrogate is refused by name", () => {
		const url = (bytes: number) => `https://example.com/${"a".repeat(bytes - "https://example.com/".length)}`;
		expect(parseExternalLink(url(2048), "l")).toHaveLength(2048);
		expect(codeOf(() => parseExternalLink(url(2049), "l"))).toBe("INVALID_ARGUMENT");
		expectInvalidArgument(() => parseFilename("a\uD800b.txt", "f"), "f is not valid UTF-8 (lone surrogate)");
	});

	test("the linked memo is memos/{memo}; unset or empty is none", () => {
		expect(parseMemoRef("memos/abc", "memo")).toBe("abc");
		expect(parseMemoRef(undefined, "memo")).toBeNull();
		expect(parseMemoRef("", "memo")).toBeNull();
		expectInvalidArgument(() => parseMemoRef("spaces/abc", "attachment.memo"), "attachment.memo");
	});
});

test("upload ids name the node that holds the session", () => {
	for (const node of ["attachments-7f9c-2", "node.with.dots", "ünïcode"]) {
		const { id, key } = newUploadId(node);
		expect(id.startsWith(`${key}.`)).toBe(true);
		expect(nodeOfUploadId(id)).toBe(node);
	}
	expect(nodeOfUploadId("Vb7Hk2LmQ9xTz4WcN8pRs3")).toBeNull();
	expect(nodeOfUploadId("short.bm9kZQ")).toBeNull();
});
