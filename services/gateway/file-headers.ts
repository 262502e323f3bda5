import type { FileInfo } from "../attachments/attachments.contract.js";
import { wellFormed } from "../../shared/free-form.js";

/**
 * The HTTP side of the file route (contract 8.5): which headers an attachment is served with,
 * and how `Range`, `If-Range` and `If-None-Match` are read. Pure functions, no I/O.
 */

/** Types a browser would run or render as a document: never served as themselves. */
const ACTIVE_TYPES: ReadonlySet<string> = new Set([
	"text/html",
	"text/javascript",
	"application/javascript",
	"application/x-javascript",
	"text/xml",
	"application/xml",
	"application/xhtml+xml",
	"image/svg+xml"
]);

export function servedContentType(type: string): string {
	if (ACTIVE_TYPES.has(type)) return "application/octet-stream";
	if (type.startsWith("text/")) return `${type}; charset=utf-8`;
	return type;
}

function isInline(servedType: string): boolean {
	return /^(image|video|audio)\//.test(servedType) || servedType === "application/pdf";
}

/** RFC 6266 with an RFC 5987 `filename*` for the exact name and an ASCII fallback for old clients. */
export function contentDisposition(servedType: string, filename: string): string {
	const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, "_");
	const encoded = encodeURIComponent(wellFormed(filename)).replace(/['()*]/g, c => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
	return `${isInline(servedType) ? "inline" : "attachment"}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

export function etagOf(info: FileInfo): string {
	return `"${info.sha256}"`;
}

/** Every header of the table of 8.5 except the length and range ones, which depend on the answer. */
export function fileHeaders(info: FileInfo, publicRead: boolean): Record<string, string> {
	const served = servedContentType(info.type);
	return {
		"Content-Type": served,
		"Content-Disposition": contentDisposition(served, info.filename),
		ETag: etagOf(info),
		"Last-Modified": new Date(info.createTime).toUTCString(),
		"Accept-Ranges": "bytes",
		"Cache-Control": publicRead ? "public, no-cache" : "private, no-store",
		"X-Content-Type-Options": "nosniff",
		"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox"
	};
}

/** `If-None-Match` names the current ETag (weak comparison, RFC 9110 13.1.2), or is `*`. */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
	if (ifNoneMatch === undefined) return false;
	const tags = ifNoneMatch.split(",").map(tag => tag.trim().replace(/^W\//, ""));
	return tags.includes("*") || tags.includes(etag);
}

export type RangeAnswer = { kind: "whole" } | { kind: "partial"; start: number; end: number } | { kind: "unsatisfiable" };

/**
 * One byte range (`bytes=0-499`, `bytes=500-`, `bytes=-500`) of an object of `size` bytes.
 * Several ranges and malformed headers are ignored (the whole body, RFC 9110 14.2); so is a
 * range whose `If-Range` validator is not the current one.
 */
export function readRange(header: string | undefined, ifRange: string | undefined, info: FileInfo): RangeAnswer {
	if (header === undefined) return { kind: "whole" };
	if (ifRange !== undefined && ifRange.trim() !== etagOf(info) && ifRange.trim() !== new Date(info.createTime).toUTCString()) return { kind: "whole" };
	const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
	if (match === null) return { kind: "whole" };
	const [, first, last] = match;
	if (first === "" && last === "") return { kind: "whole" };
	const size = info.size;
	if (first === "") {
		const suffix = Number(last);
		if (suffix === 0 || size === 0) return { kind: "unsatisfiable" };
		return { kind: "partial", start: Math.max(0, size - suffix), end: size - 1 };
	}
	const start = Number(first);
	if (last !== "" && Number(last) < start) return { kind: "whole" };
	if (start >= size) return { kind: "unsatisfiable" };
	return { kind: "partial", start, end: last === "" ? size - 1 : Math.min(Number(last), size - 1) };
}
