import type { Readable } from "node:stream";
import type { Context, ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { Caller, RequestMeta } from "../../../shared/caller.js";
import { call, STREAM_LENGTH_PARAM } from "../../../shared/contract.js";
import { alreadyExists, failedPrecondition, invalidArgument, notFound, resourceExhausted, unauthenticated } from "../../../shared/errors.js";
import { resolveId } from "../../../shared/ids.js";
import { parseInt64, toInt64, toTimestamp } from "../../../shared/proto-json.js";
import { errorLog } from "../../../shared/runtime/log-error.js";
import { blobsOf } from "../../../shared/runtime/resources.js";
import { attachmentsActions, type UploadParams } from "../attachments.contract.js";
import type { AttachmentsHostMethods } from "../attachments-methods.js";
import { concatenateBlobs, newBlobKey, storeBytes } from "../attachment-bytes.js";
import { fieldOf, optionalMessageOf, stringOf, type JsonMessage } from "../../../shared/request-message.js";
import { parseFilename, parseMemoRef, parseType, typeFromFilename } from "../attachment-fields.js";
import { toAttachmentJson } from "../attachment-json.js";
import {
	MAX_CHUNK_BYTES,
	MAX_OPEN_SESSIONS_PER_USER,
	SESSION_IDLE_MS,
	UploadSessions,
	newUploadId,
	nodeOfUploadId,
	type UploadSession,
	type UploadSpec
} from "./upload-sessions.js";

/** The gauge of contract 13 on attachments nodes. */
export const UPLOAD_SESSIONS_GAUGE = "memos_upload_sessions_open";
const SWEEP_INTERVAL_MS = 60_000;
/**
 * Assembling a 100 MiB upload from its chunks outlasts the default request timeout. (`timeout`
 * is read by Moleculer's Timeout middleware; ActionSchema's type lacks it.)
 */
export const LONG_TRANSFER = { timeout: 120_000 };

export interface UploadMethods {
	openUpload(ctx: Context<UploadParams, RequestMeta>, caller: Caller, spec: Record<string, unknown>): Promise<Record<string, unknown>>;
	continueUpload(ctx: Context<UploadParams, RequestMeta>, caller: Caller, uploadId: string, body: Readable | null): Promise<Record<string, unknown>>;
	completeUpload(ctx: Context<UploadParams, RequestMeta>, caller: Caller, session: UploadSession): Promise<void>;
	discardUpload(session: UploadSession): Promise<void>;
	sweepUploads(): Promise<void>;
	reportOpenUploads(): void;
}

export interface UploadVars {
	uploads: UploadSessions;
	/** Epoch milliseconds; tests replace it to step past the inactivity time-out. */
	clock: () => number;
	sweepTimer?: NodeJS.Timeout;
}

type UploadCtx = Context<UploadParams, RequestMeta>;

function uploadResponse(session: UploadSession): Record<string, unknown> {
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

/**
 * A call routed to the node of a session that is gone (contract 8.4: lost like on a restart):
 * unknown to the registry, or known but disconnected (the request is rejected).
 */
function isNodeGone(err: unknown): boolean {
	const name = (err as { name?: unknown }).name;
	return name === "ServiceNotFoundError" || name === "ServiceNotAvailableError" || name === "RequestRejectedError";
}

const sessionNotFound = () => notFound("upload session not found");

/**
 * The chunked upload of contract 8.4. Sessions live in the memory of the node that opened
 * them, their chunks in the blob store; the upload id names that node, and a continuation
 * reaching another replica is passed on to it with its bytes.
 */
export const UploadMixin: Partial<ServiceSchema<ServiceSettingSchema, AttachmentsHostMethods & UploadMethods, UploadVars>> = {
	actions: {
		/** POST /api/v1/attachments:upload */
		upload: {
			...LONG_TRANSFER,
			async handler(ctx: UploadCtx) {
				const caller = ctx.meta.user;
				const body = ctx.stream as Readable | null;
				try {
					if (!caller) throw unauthenticated();
					const spec = optionalMessageOf(ctx.params.spec, "spec");
					const uploadId = ctx.params.uploadId === undefined || ctx.params.uploadId === "" ? undefined : ctx.params.uploadId;
					if ((spec === undefined) === (uploadId === undefined)) throw invalidArgument("exactly one of spec and uploadId is required");
					await this.sweepUploads();
					if (spec !== undefined) {
						return await this.openUpload(ctx, caller, spec);
					}
					if (typeof uploadId !== "string") throw invalidArgument("uploadId must be a string");
					const node = nodeOfUploadId(uploadId);
					if (node === null) throw sessionNotFound();
					if (node !== this.broker.nodeID) {
						try {
							return await call(ctx, attachmentsActions.upload, ctx.params, { nodeID: node, ...(body ? { stream: body } : {}) });
						} catch (err) {
							if (isNodeGone(err)) throw sessionNotFound();
							throw err;
						}
					}
					return await this.continueUpload(ctx, caller, uploadId, body);
				} finally {
					body?.destroy();
				}
			}
		}
	},

	methods: {
		async openUpload(ctx: UploadCtx, caller: Caller, spec: JsonMessage): Promise<Record<string, unknown>> {
			const filename = parseFilename(fieldOf(spec, "filename"), "spec.filename");
			const type = parseType(fieldOf(spec, "type"), "spec.type") || typeFromFilename(filename);
			const rawSize = fieldOf(spec, "size");
			if (rawSize === undefined || rawSize === "") throw invalidArgument("spec.size is required");
			const size = parseInt64(rawSize, "spec.size");
			const limit = await this.uploadLimit();
			if (size < 1 || size > limit) throw invalidArgument(`spec.size must be between 1 and the upload limit of ${limit} bytes`);
			const attachmentId = resolveId(stringOf(fieldOf(spec, "attachmentId"), "spec.attachmentId"), "spec.attachmentId", "attachment");
			if ((await this.attachmentCollection().count({ _id: attachmentId })) > 0) throw alreadyExists(`attachment "attachments/${attachmentId}" already exists`);
			const memo = parseMemoRef(fieldOf(spec, "memo"), "spec.memo");
			if (memo !== null) await this.checkOwnMemo(ctx, memo, caller);
			if (this.uploads.openCount(caller.id) >= MAX_OPEN_SESSIONS_PER_USER) {
				throw resourceExhausted(`at most ${MAX_OPEN_SESSIONS_PER_USER} upload sessions may be open at once`);
			}
			const { id, key } = newUploadId(this.broker.nodeID);
			const uploadSpec: UploadSpec = { filename, type, size, memoId: memo, attachmentId };
			const session: UploadSession = {
				id,
				key,
				userId: caller.id,
				spec: uploadSpec,
				nextOffset: 0,
				parts: [],
				lastChunkOffset: -1,
				expiresAt: this.clock() + SESSION_IDLE_MS,
				busy: false
			};
			this.uploads.add(session);
			this.reportOpenUploads();
			return uploadResponse(session);
		},

		async continueUpload(ctx: UploadCtx, caller: Caller, uploadId: string, body: Readable | null): Promise<Record<string, unknown>> {
			const session = this.uploads.get(uploadId, caller.id);
			if (session === null) throw sessionNotFound();
			const length = ctx.params[STREAM_LENGTH_PARAM] ?? 0;
			if (length === 0 || body === null) {
				this.uploads.touch(session);
				return uploadResponse(session);
			}
			if (length > MAX_CHUNK_BYTES) throw invalidArgument(`a chunk holds at most ${MAX_CHUNK_BYTES} bytes`);
			if (ctx.params.offset === undefined || ctx.params.offset === "") throw invalidArgument("offset is required with content");
			const offset = parseInt64(ctx.params.offset, "offset");
			if (offset < 0 || offset + length > session.spec.size) throw invalidArgument(`offset + chunk length exceeds the size of ${session.spec.size} bytes`);
			if (session.completed !== undefined) {
				if (offset !== session.lastChunkOffset) throw failedPrecondition("the upload is already complete");
				this.uploads.touch(session);
				return uploadResponse(session);
			}
			if (offset !== session.nextOffset) throw failedPrecondition(`offset must be ${session.nextOffset}`);
			if (session.busy) throw failedPrecondition("another chunk of this upload is being written");
			session.busy = true;
			try {
				const part = `uploads/${session.key}/${session.parts.length}`;
				await storeBytes(blobsOf(this.broker), part, body, length);
				session.parts.push(part);
				session.nextOffset += length;
				session.lastChunkOffset = offset;
				this.uploads.touch(session);
				if (session.nextOffset === session.spec.size) await this.completeUpload(ctx, caller, session);
			} finally {
				session.busy = false;
				this.reportOpenUploads();
			}
			return uploadResponse(session);
		},

		/** The last byte arrived: the attachment is made from the staged chunks (rules of 8.2, re-checked). */
		async completeUpload(ctx: UploadCtx, caller: Caller, session: UploadSession): Promise<void> {
			const { spec } = session;
			const blobs = blobsOf(this.broker);
			try {
				const memo = spec.memoId === null ? null : await this.checkOwnMemo(ctx, spec.memoId, caller);
				if ((await this.attachmentCollection().count({ _id: spec.attachmentId })) > 0) throw alreadyExists(`attachment "attachments/${spec.attachmentId}" already exists`);
				const key = newBlobKey();
				const stored = await concatenateBlobs(blobs, session.parts, key, spec.size);
				const doc = await this.insertAttachment(
					{ id: spec.attachmentId, creatorId: caller.id, filename: spec.filename, type: spec.type, externalLink: "", stored: { key, ...stored }, memoId: memo?.id ?? null },
					ctx.meta.requestTime ?? Date.now(),
					memo
				);
				session.completed = toAttachmentJson(doc);
			} catch (err) {
				const type = (err as { type?: unknown }).type;
				if (type === "ALREADY_EXISTS" || type === "NOT_FOUND" || type === "PERMISSION_DENIED") await this.discardUpload(session);
				throw err;
			}
			const parts = session.parts;
			session.parts = [];
			for (const part of parts) await blobs.delete(part);
		},

		async discardUpload(session: UploadSession): Promise<void> {
			this.uploads.remove(session);
			const blobs = blobsOf(this.broker);
			for (const part of session.parts) await blobs.delete(part);
			session.parts = [];
		},

		async sweepUploads(): Promise<void> {
			const expired = this.uploads.takeExpired();
			const blobs = blobsOf(this.broker);
			for (const session of expired) for (const part of session.parts) await blobs.delete(part);
			if (expired.length > 0) this.reportOpenUploads();
		},

		reportOpenUploads(): void {
			if (this.broker.isMetricsEnabled()) this.broker.metrics.set(UPLOAD_SESSIONS_GAUGE, this.uploads.openTotal());
		}
	},

	created() {
		this.clock = () => Date.now();
		this.uploads = new UploadSessions(() => this.clock());
		if (this.broker.isMetricsEnabled()) {
			this.broker.metrics.register({ type: "gauge", name: UPLOAD_SESSIONS_GAUGE, description: "Chunked upload sessions open on this node" });
		}
	},

	started() {
		this.sweepTimer = setInterval(() => {
			this.sweepUploads().catch((err: unknown) => this.logger.warn(errorLog(err), "sweeping expired upload sessions failed"));
		}, SWEEP_INTERVAL_MS);
		this.sweepTimer.unref();
	},

	async stopped() {
		clearInterval(this.sweepTimer);
		for (const session of this.uploads.all()) await this.discardUpload(session);
	}
};
