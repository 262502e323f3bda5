import type { Readable } from "node:stream";
import type { Caller } from "../../../shared/caller.js";
import { aborted, failedPrecondition, invalidArgument, withHttpStatus } from "../../../shared/errors.js";
import type { AttachmentsDeps } from "../attachments-deps.js";
import { appendPart, discardUpload, openUpload, sessionNotFound } from "./chunked-upload.js";
import { receivedBytes } from "./received-bytes.js";
import type { UploadSession } from "./upload-sessions.js";

/**
 * tus 1.0 resumable uploads (https://tus.io/protocols/resumable-upload: core, creation,
 * creation-with-upload, expiration, termination; OPTIONS discovery is not offered, as
 * moleculer-web takes every OPTIONS request for a CORS preflight) over the upload sessions of contract 8.4: a
 * tus upload is a session like a chunked one (owner only, 30-minute expiry, held by one node,
 * counted in the per-user cap) whose bytes arrive raw, in PATCH requests of any length.
 * Errors keep the contract's codes in the Status body, with the HTTP statuses tus names: a wrong
 * `Upload-Offset` is ABORTED (409), an unsupported version FAILED_PRECONDITION answered 412, an
 * upload over the size limit INVALID_ARGUMENT answered 413, bytes of another Content-Type
 * INVALID_ARGUMENT answered 415.
 */

export const TUS_VERSION = "1.0.0";
export const TUS_CONTENT_TYPE = "application/offset+octet-stream";
/** The response header naming the attachment a finished upload became. */
export const ATTACHMENT_NAME_HEADER = "Attachment-Name";

/** The request headers a tus action reads, by lower-case name. */
export type TusHeaders = Record<string, string | undefined>;

/** The answer of a tus request: its status, headers and, for a created upload, its URL's last segment. */
export interface TusAnswer {
	status: number;
	headers: Record<string, string>;
	created?: string;
}

/** Every request but OPTIONS names the protocol version it speaks (tus core). */
export function checkTusResumable(headers: TusHeaders): void {
	if (headers["tus-resumable"] !== TUS_VERSION) throw withHttpStatus(failedPrecondition(`Tus-Resumable: ${TUS_VERSION} is required`), 412);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A metadata value's text: bytes that are not UTF-8 are refused, not replaced (a filename must stay what the client named it). */
function utf8Of(bytes: Buffer, key: string): string {
	try {
		return utf8.decode(bytes);
	} catch {
		throw invalidArgument(`Upload-Metadata value of "${key}" is not UTF-8 text`);
	}
}

/** `Upload-Metadata`: comma-separated `key base64value` pairs (the value may be absent); keys unique. */
export function parseTusMetadata(header: string | undefined): Record<string, string> {
	const metadata: Record<string, string> = {};
	if (header === undefined || header.trim() === "") return metadata;
	for (const pair of header.split(",")) {
		const [key, value, ...rest] = pair.trim().split(" ");
		if (key === undefined || key === "" || rest.length > 0 || !/^[\x21-\x7e]+$/.test(key)) throw invalidArgument("Upload-Metadata must be comma-separated `key base64value` pairs");
		if (Object.hasOwn(metadata, key)) throw invalidArgument(`Upload-Metadata repeats the key "${key}"`);
		if (value !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) throw invalidArgument(`Upload-Metadata value of "${key}" must be base64`);
		metadata[key] = value === undefined ? "" : utf8Of(Buffer.from(value, "base64"), key);
	}
	return metadata;
}

/** A non-negative integer header, or INVALID_ARGUMENT. */
function integerHeader(headers: TusHeaders, name: string): number {
	const raw = headers[name.toLowerCase()];
	if (raw === undefined || !/^\d{1,16}$/.test(raw)) throw invalidArgument(`${name} must be a non-negative integer`);
	return Number(raw);
}

/** The state headers of a session (HEAD, and the answers to POST and PATCH). */
export function tusState(session: UploadSession): Record<string, string> {
	const headers: Record<string, string> = {
		"Upload-Offset": String(session.nextOffset),
		"Upload-Length": String(session.spec.size),
		"Upload-Expires": new Date(session.expiresAt).toUTCString(),
		"Cache-Control": "no-store"
	};
	const name = session.completed?.name;
	if (typeof name === "string") headers[ATTACHMENT_NAME_HEADER] = name;
	return headers;
}

/**
 * POST: a new upload of `Upload-Length` bytes (deferred lengths are not offered) described by
 * `Upload-Metadata` (`filename` or `name`, `type` or `filetype`, `memo`, `attachmentId`), under
 * the rules of opening a chunked upload; with creation-with-upload, its first bytes come along.
 */
export async function createTusUpload(deps: AttachmentsDeps, caller: Caller, headers: TusHeaders, body: Readable | null, now: number): Promise<TusAnswer> {
	checkTusResumable(headers);
	if (headers["upload-defer-length"] !== undefined) throw invalidArgument("Upload-Defer-Length is not supported: send Upload-Length");
	const size = integerHeader(headers, "Upload-Length");
	const limit = await deps.uploadLimit();
	if (size > limit) throw withHttpStatus(invalidArgument(`Upload-Length must be at most the upload limit of ${limit} bytes`), 413);
	const metadata = parseTusMetadata(headers["upload-metadata"]);
	const session = await openUpload(deps, caller, {
		filename: metadata.filename ?? metadata.name ?? "",
		type: metadata.type ?? metadata.filetype ?? "",
		size: String(size),
		memo: metadata.memo ?? "",
		attachmentId: metadata.attachmentId ?? ""
	});
	if (body !== null && hasBody(headers)) await appendTus(deps, caller, session, headers, body, now);
	return { status: 201, headers: tusState(session), created: session.id };
}

/** PATCH: bytes at `Upload-Offset`, which must be the upload's offset (else ABORTED, 409). */
export async function patchTusUpload(deps: AttachmentsDeps, caller: Caller, uploadId: string, headers: TusHeaders, body: Readable | null, now: number): Promise<TusAnswer> {
	checkTusResumable(headers);
	const session = liveSession(deps, caller, uploadId);
	if (body !== null && hasBody(headers)) {
		const offset = integerHeader(headers, "Upload-Offset");
		if (offset !== session.nextOffset) throw aborted(`Upload-Offset must be ${session.nextOffset}`);
		await appendTus(deps, caller, session, headers, body, now);
	} else {
		checkContentType(headers);
		if (integerHeader(headers, "Upload-Offset") !== session.nextOffset) throw aborted(`Upload-Offset must be ${session.nextOffset}`);
		deps.uploads.touch(session);
	}
	return { status: 204, headers: tusState(session) };
}

/** HEAD: the upload's offset and length. */
export function tusUploadState(deps: AttachmentsDeps, caller: Caller, uploadId: string, headers: TusHeaders): TusAnswer {
	checkTusResumable(headers);
	return { status: 200, headers: tusState(liveSession(deps, caller, uploadId)) };
}

/** DELETE (termination): the upload and its received bytes are gone; a finished upload's attachment stays. */
export async function terminateTusUpload(deps: AttachmentsDeps, caller: Caller, uploadId: string, headers: TusHeaders): Promise<TusAnswer> {
	checkTusResumable(headers);
	const session = liveSession(deps, caller, uploadId);
	if (session.busy) throw aborted("bytes of this upload are being written");
	await discardUpload(deps, session);
	deps.reportOpenUploads();
	return { status: 204, headers: {} };
}

function liveSession(deps: AttachmentsDeps, caller: Caller, uploadId: string): UploadSession {
	const session = deps.uploads.get(uploadId, caller.id);
	if (session === null) throw sessionNotFound();
	return session;
}

/** A request carries bytes when it says so (Content-Length above 0, or a chunked body). */
function hasBody(headers: TusHeaders): boolean {
	const length = headers["content-length"];
	return length === undefined ? headers["transfer-encoding"] !== undefined : length !== "0";
}

function checkContentType(headers: TusHeaders): void {
	const type = (headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
	if (type !== TUS_CONTENT_TYPE) throw withHttpStatus(invalidArgument(`Content-Type must be ${TUS_CONTENT_TYPE}`), 415);
}

/** Appends the request's bytes at the session's offset; a request cut short keeps what arrived. */
async function appendTus(deps: AttachmentsDeps, caller: Caller, session: UploadSession, headers: TusHeaders, body: Readable, now: number): Promise<void> {
	checkContentType(headers);
	if (session.completed !== undefined) throw aborted("the upload is already complete");
	if (session.busy) throw aborted("bytes of this upload are being written");
	const left = session.spec.size - session.nextOffset;
	const length = headers["content-length"] === undefined ? undefined : integerHeader(headers, "Content-Length");
	if (length !== undefined && length > left) throw invalidArgument(`the request carries ${length} bytes; ${left} are left of the upload`);
	await appendPart(deps, caller, session, receivedBytes(body, left), undefined, now);
}
