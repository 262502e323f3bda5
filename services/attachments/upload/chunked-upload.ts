import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import type { Caller } from "../../../shared/caller.js";
import { failedPrecondition, invalidArgument, notFound, resourceExhausted } from "../../../shared/errors.js";
import { resolveId } from "../../../shared/ids.js";
import { parseInt64, toInt64, toTimestamp } from "../../../shared/proto-json.js";
import { fieldOf, stringOf, type JsonMessage } from "../../../shared/request-message.js";
import { transferHeapGrowth } from "../../../shared/runtime/heap-growth.js";
import { extendHead, withHead } from "../attachment-bytes.js";
import { parseFilename, parseMemoRef, parseType, typeFromFilename } from "../attachment-fields.js";
import { toAttachmentJson } from "../attachment-json.js";
import { assertIdFree, checkOwnMemo, insertAttachment } from "../attachment-records.js";
import { claimNewBlob } from "../blob-claims.js";
import type { AttachmentsDeps } from "../attachments-deps.js";
import { MAX_CHUNK_BYTES, MAX_OPEN_SESSIONS_PER_USER, SESSION_IDLE_MS, newUploadId, orphanedChunks, STAGING_PREFIX, stagedPart, stagingFolder, type UploadSession, type UploadSpec } from "./upload-sessions.js";

/**
 * The chunked upload of contract 8.4. Sessions live in the memory of the node that opened
 * them (`deps.uploads`), their chunks in the blob store; the upload id names that node, and
 * the service passes a continuation reaching another replica on to it with its bytes.
 */

/** The gauge of contract 13 on attachments nodes. */
export const UPLOAD_SESSIONS_GAUGE = "memos_upload_sessions_open";

export const sessionNotFound = () => notFound("upload session not found");

/** A chunk as the service received it: its bytes, their length and the client's offset. */
export interface UploadChunk {
	body: Readable | null;
	length: number;
	offset: unknown;
}

export function uploadResponse(session: UploadSession): Record<string, unknown> {
	const response: Record<string, unknown> = {
		uploadId: session.id,
		size: toInt64(session.spec.size),
		nextOffset: toInt64(session.nextOffset),
		maxChunkSize: toInt64(MAX_CHUNK_BYTES),
		expireTime: toTimestamp(session.expiresAt)
	};
	if (session.completed !== undefined) response.attachment = session.completed;
	return response;
}

export async function openUpload(deps: AttachmentsDeps, caller: Caller, spec: JsonMessage): Promise<UploadSession> {
	const filename = parseFilename(fieldOf(spec, "filename"), "spec.filename");
	const type = parseType(fieldOf(spec, "type"), "spec.type") || typeFromFilename(filename);
	const rawSize = fieldOf(spec, "size");
	if (rawSize === undefined || rawSize === "") throw invalidArgument("spec.size is required");
	const size = parseInt64(rawSize, "spec.size");
	const limit = await deps.uploadLimit();
	if (size < 1 || size > limit) throw invalidArgument(`spec.size must be between 1 and the upload limit of ${limit} bytes`);
	const attachmentId = resolveId(stringOf(fieldOf(spec, "attachmentId"), "spec.attachmentId"), "spec.attachmentId", "attachment");
	await assertIdFree(deps, attachmentId);
	const memo = parseMemoRef(fieldOf(spec, "memo"), "spec.memo");
	if (memo !== null) await checkOwnMemo(deps, memo, caller);
	if (deps.uploads.openCount(caller.id) >= MAX_OPEN_SESSIONS_PER_USER) {
		throw resourceExhausted(`at most ${MAX_OPEN_SESSIONS_PER_USER} upload sessions may be open at once`);
	}
	const { id } = newUploadId(deps.nodeID);
	const uploadSpec: UploadSpec = { filename, type, size, memoId: memo, attachmentId };
	const session: UploadSession = {
		id,
		userId: caller.id,
		spec: uploadSpec,
		nextOffset: 0,
		parts: [],
		hash: createHash("sha256"),
		head: Buffer.alloc(0),
		lastChunkOffset: -1,
		expiresAt: deps.now() + SESSION_IDLE_MS,
		busy: false
	};
	deps.uploads.add(session);
	deps.reportOpenUploads();
	return session;
}

/** A chunk (or an empty status query) for a session of this node; `now` is the request time. */
export async function continueUpload(deps: AttachmentsDeps, caller: Caller, uploadId: string, chunk: UploadChunk, now: number): Promise<UploadSession> {
	const session = deps.uploads.get(uploadId, caller.id);
	if (session === null) throw sessionNotFound();
	const { body, length } = chunk;
	if (length === 0 || body === null) {
		deps.uploads.touch(session);
		return session;
	}
	if (length > MAX_CHUNK_BYTES) throw invalidArgument(`a chunk holds at most ${MAX_CHUNK_BYTES} bytes`);
	if (chunk.offset === undefined || chunk.offset === "") throw invalidArgument("offset is required with content");
	const offset = parseInt64(chunk.offset, "offset");
	if (offset < 0 || offset + length > session.spec.size) throw invalidArgument(`offset + chunk length exceeds the size of ${session.spec.size} bytes`);
	if (session.completed !== undefined) {
		if (offset !== session.lastChunkOffset) throw failedPrecondition("the upload is already complete");
		deps.uploads.touch(session);
		return session;
	}
	if (offset !== session.nextOffset) throw failedPrecondition(`offset must be ${session.nextOffset}`);
	if (session.busy) throw failedPrecondition("another chunk of this upload is being written");
	await appendPart(deps, caller, session, body, length, now);
	return session;
}

/**
 * Stores `body` as the session's next part, at its next offset (`length` bytes exactly, or as
 * many as the stream carries when unknown), and completes the upload when that was the last
 * byte, with the heap's growth of a transfer meanwhile. The caller has checked the offset and
 * that no other part is being written.
 */
export async function appendPart(deps: AttachmentsDeps, caller: Caller, session: UploadSession, body: Readable, length: number | undefined, now: number): Promise<void> {
	session.busy = true;
	const transferOver = transferHeapGrowth();
	// A failed put may have hashed bytes it did not keep.
	const hashBefore = session.hash.copy();
	try {
		const offset = session.nextOffset;
		const { blobs } = deps;
		// Every chunk into one staged object where the store can append (completion then renames
		// it), else an object per chunk (which completion composes). A staged chunk outlives
		// neither its session nor so the process: no wait for the disk.
		const part = stagedPart(session.id, blobs.append === undefined ? session.parts.length : 0);
		const write = (bytes: Readable) =>
			blobs.append === undefined
				? blobs.put(part, bytes, { size: length, durable: false, hash: session.hash })
				: blobs.append(part, bytes, { offset, size: length, hash: session.hash });
		const stored = await withHead(body, write).catch((err: unknown) => {
			session.hash = hashBefore;
			throw err;
		});
		if (stored.size === 0) {
			// An empty part of its own, or the staged object an empty first append made.
			if (blobs.append === undefined || session.parts.length === 0) await blobs.delete(part);
		} else {
			if (!session.parts.includes(part)) session.parts.push(part);
			session.head = extendHead(session.head, stored.head);
			session.nextOffset += stored.size;
			session.lastChunkOffset = offset;
		}
		deps.uploads.touch(session);
		if (session.nextOffset === session.spec.size) await completeUpload(deps, caller, session, now);
	} finally {
		transferOver();
		session.busy = false;
		deps.reportOpenUploads();
	}
}

/**
 * The last byte arrived: the attachment is made from the staged chunks (rules of 8.2,
 * re-checked), composed by the blob store and hashed as they arrived, so not read again.
 */
async function completeUpload(deps: AttachmentsDeps, caller: Caller, session: UploadSession, now: number): Promise<void> {
	const { spec } = session;
	try {
		const memo = spec.memoId === null ? null : await checkOwnMemo(deps, spec.memoId, caller);
		await assertIdFree(deps, spec.attachmentId);
		const key = await claimNewBlob(deps, spec.attachmentId);
		await deps.blobs.compose(session.parts, key);
		const stored = { key, size: spec.size, sha256: session.hash.copy().digest("hex"), head: session.head };
		const doc = await insertAttachment(
			deps,
			{ id: spec.attachmentId, creatorId: caller.id, filename: spec.filename, type: spec.type, externalLink: "", stored, memoId: memo?.id ?? null },
			now,
			memo
		);
		session.completed = toAttachmentJson(doc);
	} catch (err) {
		const type = (err as { type?: unknown }).type;
		if (type === "ALREADY_EXISTS" || type === "NOT_FOUND" || type === "PERMISSION_DENIED") await discardUpload(deps, session);
		throw err;
	}
	await removeStagedChunks(deps, session);
}

/** What is left of the session's chunks goes, with their folder (compose may have taken some of them). */
async function removeStagedChunks(deps: AttachmentsDeps, session: UploadSession): Promise<void> {
	session.parts = [];
	await deps.blobs.deleteFolder(stagingFolder(session.id));
}

export async function discardUpload(deps: AttachmentsDeps, session: UploadSession): Promise<void> {
	deps.uploads.remove(session);
	await removeStagedChunks(deps, session);
}

/** Sessions idle past their time-out are dropped with their staged chunks. */
export async function sweepUploads(deps: AttachmentsDeps): Promise<void> {
	const expired = deps.uploads.takeExpired();
	for (const session of expired) await removeStagedChunks(deps, session);
	if (expired.length > 0) deps.reportOpenUploads();
}

/**
 * At start-up this node holds no session (they live in memory): the staged chunks a crash left
 * behind, of JSON chunked and tus uploads alike, are removed; other live nodes' are kept (orphanedChunks).
 */
export async function removeOrphanedChunks(deps: AttachmentsDeps, nodeAvailable: (node: string) => boolean): Promise<number> {
	const orphans = orphanedChunks(await deps.blobs.list(STAGING_PREFIX), deps.nodeID, nodeAvailable, deps.now());
	for (const key of orphans) await deps.blobs.delete(key);
	// A folder is orphaned whole (orphanedChunks), so the emptied ones go too.
	const folders = new Set(orphans.map(key => key.slice(STAGING_PREFIX.length).split("/")).filter(path => path.length > 1).map(([folder]) => `${STAGING_PREFIX}${folder}/`));
	for (const folder of folders) await deps.blobs.deleteFolder(folder);
	return orphans.length;
}

/** For DeleteUser: the user's sessions of this node go, with their chunks. */
export async function discardUploadsOf(deps: AttachmentsDeps, userId: string): Promise<void> {
	for (const session of deps.uploads.all()) if (session.userId === userId) await discardUpload(deps, session);
}
