import type { Readable } from "node:stream";
import type { Context, ServiceBroker, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { signedIn, type Caller, type RequestMeta } from "../../shared/caller.js";
import type { ByteRange } from "../../shared/blob/blob-store.js";
import { call, REQUEST_HEADERS_PARAM, STREAM_LENGTH_PARAM } from "../../shared/contract.js";
import { invalidArgument, unauthenticated } from "../../shared/errors.js";
import { parseUpdateMask } from "../../shared/field-mask.js";
import { pathId } from "../../shared/ids.js";
import { fieldOf, messageOf, optionalMessageOf, queryStringOf } from "../../shared/request-message.js";
import { countAttachmentBytes } from "../../shared/runtime/business-metrics.js";
import { errorLog } from "../../shared/runtime/log-error.js";
import { blobsOf, documentsOf } from "../../shared/runtime/resources.js";
import { InstanceSettingsMixin, type InstanceSettingsMethods } from "../../shared/settings/instance-settings.mixin.js";
import { memosActions } from "../memos/memos.contract.js";
import { spacesActions } from "../spaces/spaces.contract.js";
import { TUS_PATH, attachmentsActions, type FileAccess, type LinkTarget, type TusParams, type UploadParams } from "./attachments.contract.js";
import type { AttachmentsDeps } from "./attachments-deps.js";
import { attachmentsStore, ensureAttachmentIndexes } from "./attachments-store.js";
import { batchDeleteAttachments, deleteAttachment, renameAttachment } from "./attachment-changes.js";
import { parseFilename, uploadLimitBytes } from "./attachment-fields.js";
import { toAttachmentJson } from "./attachment-json.js";
import { completeRemovals, removeAttachments } from "./attachment-removals.js";
import { settleClaims } from "./blob-claims.js";
import { createAttachment } from "./create-attachment.js";
import { parseCreateAttachment, type CreateAttachmentParams } from "./create-input.js";
import { listAttachments, listMemoAttachments, type AttachmentPage } from "./list-attachments.js";
import { attachmentsOfMemos, linkForMemo, parseMemoAttachmentNames, setMemoAttachments } from "./memo-links.js";
import { deleteForMemos, followMemo, leaveSpace, setMemosDeleted } from "./memo-following.js";
import { fileInfo, fileStream, getAttachment } from "./read-attachment.js";
import { ensureTotals, recountTotals, storedTotals } from "./stored-totals.js";
import {
	UPLOAD_SESSIONS_GAUGE,
	continueUpload,
	discardUpload,
	discardUploadsOf,
	openUpload,
	removeOrphanedChunks,
	sessionNotFound,
	sweepUploads,
	uploadResponse
} from "./upload/chunked-upload.js";
import { UploadSessions, nodeOfUploadId } from "./upload/upload-sessions.js";
import { createTusUpload, patchTusUpload, terminateTusUpload, tusUploadState, type TusAnswer, type TusHeaders } from "./upload/tus-upload.js";
import { indexesMixin } from "../../shared/runtime/indexes-mixin.js";

const SWEEP_INTERVAL_MS = 60_000;
/** A deleted user's attachments removed per round (deleteUserData). */
const USER_DATA_BATCH = 100;
/**
 * Assembling a 100 MiB upload from its chunks outlasts the default request timeout. (`timeout`
 * is read by Moleculer's Timeout middleware; ActionSchema's type lacks it.)
 */
const LONG_TRANSFER = { timeout: 120_000 };

interface AttachmentsMethods extends InstanceSettingsMethods {
	/** The rules' dependencies, with the other services called on behalf of `caller` (a request, or the broker). */
	deps(caller: Context | ServiceBroker): AttachmentsDeps;
	/**
	 * Serves a tus request on an existing upload: here when this node holds it, else passed on
	 * (with its bytes) to the node that does; the answer goes out as response meta.
	 */
	tusOnHolder(ctx: Ctx<TusParams>, ref: typeof attachmentsActions.tusPatch, serve: (deps: AttachmentsDeps, caller: Caller, uploadId: string, headers: TusHeaders, body: Readable | null) => Promise<TusAnswer> | TusAnswer): Promise<null>;
	/**
	 * The repair pass (issue 21): finishes removals left half-done (attachment-removals.ts),
	 * recounts the stored totals left pending before `now - SETTLE_MS` (stored-totals.ts) and
	 * deletes new blobs whose record was never written (blob-claims.ts).
	 */
	repairStorage(now: number): Promise<{ removals: number; recounted: boolean; orphanedBlobs: number }>;
}

interface AttachmentsVars {
	uploads: UploadSessions;
	/** Epoch milliseconds; tests replace it to step past the inactivity time-out. */
	clock: () => number;
	sweepTimer?: NodeJS.Timeout;
}

type Ctx<P> = Context<P, RequestMeta>;

/** Response meta moleculer-web turns into the status line and headers (tus answers have no body). */
interface ResponseMeta extends RequestMeta {
	$statusCode?: number;
	$responseHeaders?: Record<string, string>;
	$location?: string;
}

function answerTus(ctx: Ctx<unknown>, answer: TusAnswer): null {
	const meta = ctx.meta as ResponseMeta;
	meta.$statusCode = answer.status;
	meta.$responseHeaders = answer.headers;
	if (answer.created !== undefined) meta.$location = `${TUS_PATH}/${answer.created}`;
	return null;
}

/**
 * Whatever a tus request did not read of its body is read and dropped, so that the client gets
 * the answer (a destroyed request would reset its connection instead).
 */
function drain(body: Readable | null): void {
	body?.resume();
}

const requestTime = (ctx: Ctx<unknown>) => ctx.meta.requestTime ?? Date.now();

function pageJson(page: AttachmentPage) {
	return { attachments: page.attachments.map(toAttachmentJson), nextPageToken: page.nextPageToken };
}

/**
 * A call routed to the node of a session that is gone (contract 8.4: lost like on a restart):
 * unknown to the registry, or known but disconnected (the request is rejected).
 */
function isNodeGone(err: unknown): boolean {
	const name = (err as { name?: unknown }).name;
	return name === "ServiceNotFoundError" || name === "ServiceNotAvailableError" || name === "RequestRejectedError";
}

/** AttachmentService (contract 8) and the attachments of memos (7.9). */
const AttachmentsService: ServiceSchema<ServiceSettingSchema, AttachmentsMethods, AttachmentsVars> = {
	name: "attachments",
	// Mixins are typed with their own `this`; `mixins` takes untyped schemas.
	mixins: [InstanceSettingsMixin as Partial<ServiceSchema>, indexesMixin(documents => ensureAttachmentIndexes(attachmentsStore(documents)))],

	actions: {
		/** POST /api/v1/attachments (contract 8.2): the bytes arrive as the call's stream. */
		createAttachment: {
			...LONG_TRANSFER,
			async handler(ctx: Ctx<CreateAttachmentParams>) {
				const caller = signedIn(ctx);
				const body = ctx.stream as Readable | null;
				try {
					const input = parseCreateAttachment(ctx.params);
					return toAttachmentJson(await createAttachment(this.deps(ctx), input, caller, body, requestTime(ctx)));
				} finally {
					body?.destroy();
				}
			}
		},

		/** POST /api/v1/attachments:upload (contract 8.4): opens a session, or continues one on the node holding it. */
		upload: {
			...LONG_TRANSFER,
			async handler(ctx: Ctx<UploadParams>) {
				const caller = ctx.meta.user;
				const body = ctx.stream as Readable | null;
				try {
					if (!caller) throw unauthenticated();
					const spec = optionalMessageOf(ctx.params.spec, "spec");
					const uploadId = ctx.params.uploadId === undefined || ctx.params.uploadId === "" ? undefined : ctx.params.uploadId;
					if ((spec === undefined) === (uploadId === undefined)) throw invalidArgument("exactly one of spec and uploadId is required");
					const deps = this.deps(ctx);
					await sweepUploads(deps);
					if (spec !== undefined) return uploadResponse(await openUpload(deps, caller, spec));
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
					const chunk = { body, length: ctx.params[STREAM_LENGTH_PARAM] ?? 0, offset: ctx.params.offset };
					return uploadResponse(await continueUpload(deps, caller, uploadId, chunk, requestTime(ctx)));
				} finally {
					body?.destroy();
				}
			}
		},

		/** POST TUS_PATH: creates a tus upload (a session of 8.4), with its first bytes when they come along. */
		tusCreate: {
			...LONG_TRANSFER,
			async handler(ctx: Ctx<TusParams>) {
				const body = ctx.stream as Readable | null;
				try {
					const caller = signedIn(ctx);
					const deps = this.deps(ctx);
					await sweepUploads(deps);
					return answerTus(ctx, await createTusUpload(deps, caller, ctx.params[REQUEST_HEADERS_PARAM] ?? {}, body, requestTime(ctx)));
				} finally {
					drain(body);
				}
			}
		},

		/** HEAD TUS_PATH/{upload}: the upload's offset. */
		tusState: {
			async handler(ctx: Ctx<TusParams>) {
				return this.tusOnHolder(ctx, attachmentsActions.tusState, (deps, caller, uploadId, headers) => tusUploadState(deps, caller, uploadId, headers));
			}
		},

		/** PATCH TUS_PATH/{upload}: raw bytes at Upload-Offset. */
		tusPatch: {
			...LONG_TRANSFER,
			async handler(ctx: Ctx<TusParams>) {
				return this.tusOnHolder(ctx, attachmentsActions.tusPatch, (deps, caller, uploadId, headers, body) => patchTusUpload(deps, caller, uploadId, headers, body, requestTime(ctx)));
			}
		},

		/** DELETE TUS_PATH/{upload}: termination. */
		tusTerminate: {
			async handler(ctx: Ctx<TusParams>) {
				return this.tusOnHolder(ctx, attachmentsActions.tusTerminate, (deps, caller, uploadId, headers) => terminateTusUpload(deps, caller, uploadId, headers));
			}
		},

		/** GET /api/v1/attachments (contract 8.1). */
		listAttachments: {
			async handler(ctx: Ctx<Record<string, unknown>>) {
				const caller = signedIn(ctx);
				return pageJson(await listAttachments(this.deps(ctx), ctx.params, caller, requestTime(ctx)));
			}
		},

		/** GET /api/v1/attachments/{attachment} (contract 8.1). */
		getAttachment: {
			async handler(ctx: Ctx<{ attachment?: unknown }>) {
				const id = pathId(ctx.params.attachment);
				return toAttachmentJson(await getAttachment(this.deps(ctx), id, ctx.meta.user ?? null));
			}
		},

		/** PATCH /api/v1/attachments/{attachment} (contract 8.3): `filename` only. */
		updateAttachment: {
			async handler(ctx: Ctx<{ attachment?: unknown; updateMask?: unknown; patch?: Record<string, unknown> }>) {
				const caller = signedIn(ctx);
				const id = pathId(ctx.params.attachment);
				parseUpdateMask(queryStringOf(ctx.params.updateMask, "updateMask"), ["filename"], { required: true });
				const filename = parseFilename(fieldOf(messageOf(ctx.params.patch, "attachment"), "filename"), "attachment.filename");
				return toAttachmentJson(await renameAttachment(this.deps(ctx), id, filename, caller));
			}
		},

		/** DELETE /api/v1/attachments/{attachment} (contract 8.3). */
		deleteAttachment: {
			async handler(ctx: Ctx<{ attachment?: unknown }>): Promise<void> {
				const caller = signedIn(ctx);
				await deleteAttachment(this.deps(ctx), pathId(ctx.params.attachment), caller);
			}
		},

		/** POST /api/v1/attachments:batchDelete (contract 8.3). */
		batchDeleteAttachments: {
			async handler(ctx: Ctx<{ names?: unknown }>): Promise<void> {
				const caller = signedIn(ctx);
				await batchDeleteAttachments(this.deps(ctx), ctx.params.names, caller);
			}
		},

		/** PATCH /api/v1/memos/{memo}/attachments (contract 7.9): replaces the memo's set. */
		setMemoAttachments: {
			async handler(ctx: Ctx<{ memo?: unknown; attachments?: unknown }>): Promise<void> {
				const caller = signedIn(ctx);
				const memoId = pathId(ctx.params.memo);
				const ids = parseMemoAttachmentNames(ctx.params.attachments);
				const deps = this.deps(ctx);
				await setMemoAttachments(deps, memoId, ids, caller);
				await deps.peers.touchMemo(memoId, requestTime(ctx));
			}
		},

		/** For the memos service: the `attachments` of CreateMemo and UpdateMemo (contract 7.3, 7.5). */
		linkForMemo: {
			visibility: "public",
			async handler(ctx: Ctx<{ memo: LinkTarget; attachments?: unknown; apply?: boolean }>): Promise<Record<string, unknown>[]> {
				const ids = parseMemoAttachmentNames(ctx.params.attachments);
				return linkForMemo(this.deps(ctx), ctx.params.memo, ids, ctx.params.apply === true);
			}
		},

		/** GET /api/v1/memos/{memo}/attachments (contract 7.9). */
		listMemoAttachments: {
			async handler(ctx: Ctx<{ memo?: unknown; pageSize?: unknown; pageToken?: unknown }>) {
				return pageJson(await listMemoAttachments(this.deps(ctx), pathId(ctx.params.memo), ctx.params));
			}
		},

		/** For the memos service: the attachments of memos in display order, one call per request (contract 4.1). */
		forMemos: {
			visibility: "public",
			async handler(ctx: Ctx<{ memoIds?: string[] }>): Promise<Record<string, Record<string, unknown>[]>> {
				const byMemo = await attachmentsOfMemos(this.deps(ctx), ctx.params.memoIds ?? []);
				const result: Record<string, Record<string, unknown>[]> = {};
				for (const [memoId, docs] of byMemo) result[memoId] = docs.map(toAttachmentJson);
				return result;
			}
		},

		/** For the memos service: a purged memo takes its attachments and their bytes along (contract 7.6). */
		deleteForMemos: {
			visibility: "public",
			async handler(ctx: Ctx<{ memoIds?: string[] }>): Promise<void> {
				await deleteForMemos(this.deps(ctx), ctx.params.memoIds ?? []);
			}
		},

		/** For InstanceStats (contract 4.11, services/instance/stats.ts): counters of what this service owns. */
		stats: {
			visibility: "public",
			async handler(ctx: Ctx<unknown>): Promise<{ attachmentCount: number; attachmentBytes: number; localStorageBytes: number }> {
				const deps = this.deps(ctx);
				const totals = await storedTotals(deps.store.totals);
				// Local files hold exactly the stored attachments' bytes; S3 usage is not ours to measure.
				return { attachmentCount: totals.count, attachmentBytes: totals.bytes, localStorageBytes: deps.blobs.kind === "local" ? totals.bytes : -1 };
			}
		},

		/** For DeleteUser (contract 2.4): every attachment of the user, with its bytes; idempotent. */
		deleteUserData: {
			visibility: "public",
			async handler(ctx: Ctx<{ userId?: string }>): Promise<void> {
				const userId = ctx.params.userId;
				if (typeof userId !== "string" || userId === "") return;
				const deps = this.deps(ctx);
				// A bounded batch at a time: a user may own any number of attachments.
				for (;;) {
					const batch = await deps.store.attachments.find({ creatorId: userId }, { limit: USER_DATA_BATCH });
					if (batch.length === 0) break;
					await removeAttachments(deps, batch);
				}
				await discardUploadsOf(deps, userId);
			}
		},

		/** For the memos service: a soft-deleted memo's attachments are kept but neither listed nor served (contract 7.6). */
		setMemosDeleted: {
			visibility: "public",
			async handler(ctx: Ctx<{ memoIds?: string[]; deleted?: boolean }>): Promise<void> {
				await setMemosDeleted(this.deps(ctx), ctx.params.memoIds ?? [], ctx.params.deleted === true);
			}
		},

		/** For the memos service: a memo moved to another space, or became readable or unreadable in its space (contract 7.5, 8.1). */
		followMemo: {
			visibility: "public",
			async handler(ctx: Ctx<{ memoId?: string; spaceId?: string | null; spaceReadable?: boolean }>): Promise<void> {
				const { memoId, spaceId = null, spaceReadable = false } = ctx.params;
				if (typeof memoId !== "string") return;
				await followMemo(this.deps(ctx), memoId, spaceId, spaceReadable);
			}
		},

		/** For the memos service: the memos of a deleted space left it (contract 9). */
		leaveSpace: {
			visibility: "public",
			async handler(ctx: Ctx<{ spaceId?: string }>): Promise<void> {
				const spaceId = ctx.params.spaceId;
				if (typeof spaceId !== "string" || spaceId === "") return;
				await leaveSpace(this.deps(ctx), spaceId);
			}
		},

		/** For the file route (services/gateway/file-route.ts): access (contract 8.5) and what the headers need. */
		fileInfo: {
			visibility: "public",
			async handler(ctx: Ctx<{ attachment?: unknown; shareToken?: unknown }>): Promise<FileAccess> {
				return fileInfo(this.deps(ctx), pathId(ctx.params.attachment), ctx.meta.user ?? null, ctx.params.shareToken);
			}
		},

		/** For the file route: the bytes, or one range of them, as a stream. */
		fileStream: {
			visibility: "public",
			async handler(ctx: Ctx<{ attachment?: unknown; range?: ByteRange }>): Promise<Readable> {
				return fileStream(this.deps(ctx), pathId(ctx.params.attachment), ctx.params.range);
			}
		}
	},

	methods: {
		async tusOnHolder(ctx, ref, serve) {
			const body = ctx.stream as Readable | null;
			try {
				const caller = signedIn(ctx);
				const uploadId = typeof ctx.params.upload === "string" ? ctx.params.upload : "";
				const node = nodeOfUploadId(uploadId);
				if (node === null) throw sessionNotFound();
				if (node !== this.broker.nodeID) {
					try {
						return await call(ctx, ref, ctx.params, { nodeID: node, ...(body ? { stream: body } : {}) });
					} catch (err) {
						if (isNodeGone(err)) throw sessionNotFound();
						throw err;
					}
				}
				const deps = this.deps(ctx);
				await sweepUploads(deps);
				return answerTus(ctx, await serve(deps, caller, uploadId, ctx.params[REQUEST_HEADERS_PARAM] ?? {}, body));
			} finally {
				drain(body);
			}
		},

		async repairStorage(now) {
			const deps = this.deps(this.broker);
			// Recounted first: completing removals counts itself in as a change just begun.
			const recounted = await recountTotals(deps.store.totals, deps.store.attachments, now);
			return { removals: await completeRemovals(deps), recounted, orphanedBlobs: await settleClaims(deps, now) };
		},

		deps(caller: Context | ServiceBroker): AttachmentsDeps {
			return {
				store: attachmentsStore(documentsOf(this.broker)),
				blobs: blobsOf(this.broker),
				peers: {
					async memoInfo(memoIds) {
						const ids = [...new Set(memoIds)];
						if (ids.length === 0) return new Map();
						const infos = await call(caller, memosActions.accessInfo, { memoIds: ids });
						return new Map(infos.map(info => [info.id, info]));
					},
					sharedMemo: async token => (await call(caller, memosActions.resolveShare, { token }))?.memoId ?? null,
					touchMemo: (memoId, time) => call(caller, memosActions.touch, { memoId, time }),
					async isSpaceMember(spaceId, userId) {
						const found = await call(caller, spacesActions.spaceMembers, { spaceId, userIds: [userId] });
						return Object.hasOwn(found.roles, userId);
					}
				},
				uploadLimit: async () => uploadLimitBytes(await this.instanceSetting("STORAGE")),
				uploads: this.uploads,
				nodeID: this.broker.nodeID,
				now: () => this.clock(),
				countStoredBytes: bytes => countAttachmentBytes(this.broker, bytes),
				reportOpenUploads: () => {
					if (this.broker.isMetricsEnabled()) this.broker.metrics.set(UPLOAD_SESSIONS_GAUGE, this.uploads.openTotal());
				}
			};
		}
	},

	created() {
		this.clock = () => Date.now();
		this.uploads = new UploadSessions(() => this.clock());
		if (this.broker.isMetricsEnabled()) {
			this.broker.metrics.register({ type: "gauge", name: UPLOAD_SESSIONS_GAUGE, description: "Chunked upload sessions open on this node" });
		}
	},

	async started() {
		await ensureTotals(attachmentsStore(documentsOf(this.broker)).totals);
		const repair = () => this.repairStorage(this.clock()).catch((err: unknown) => this.logger.error(errorLog(err), "completing attachment removals or recounting the stored totals failed"));
		await repair();
		const removed = await removeOrphanedChunks(this.deps(this.broker), node => this.broker.registry.nodes.get(node)?.available === true);
		if (removed > 0) this.logger.info(`removed ${removed} staged upload chunks that belong to no live upload session`);
		this.sweepTimer = setInterval(() => {
			sweepUploads(this.deps(this.broker)).catch((err: unknown) => this.logger.warn(errorLog(err), "sweeping expired upload sessions failed"));
			void repair();
		}, SWEEP_INTERVAL_MS);
		this.sweepTimer.unref();
	},

	async stopped() {
		clearInterval(this.sweepTimer);
		const deps = this.deps(this.broker);
		for (const session of this.uploads.all()) await discardUpload(deps, session);
	}
};

export default AttachmentsService;
