import type { Readable } from "node:stream";
import type { Context, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { signedIn, type Caller, type RequestMeta } from "../../shared/caller.js";
import { parseOrderBy, type OrderField } from "../../shared/cel/order-by.js";
import { BlobNotFoundError, type ByteRange } from "../../shared/blob/blob-store.js";
import { call } from "../../shared/contract.js";
import { alreadyExists, invalidArgument, notFound, permissionDenied, unauthenticated } from "../../shared/errors.js";
import { pathId } from "../../shared/ids.js";
import { parseName } from "../../shared/names.js";
import { listPage, pageSizeParam } from "../../shared/paging/list-page.js";
import { nextSequence } from "../../shared/sequence.js";
import { fieldOf, messageOf, queryStringOf } from "../../shared/request-message.js";
import { countAttachmentBytes } from "../../shared/runtime/business-metrics.js";
import { blobsOf, documentsOf } from "../../shared/runtime/resources.js";
import { InstanceSettingsMixin } from "../../shared/settings/instance-settings.mixin.js";
import { DuplicateKeyError, type Collection } from "../../shared/store/document-store.js";
import { parseUpdateMask } from "../../shared/field-mask.js";
import { memosActions, type MemoAccessInfo } from "../memos/memos.contract.js";
import { spacesActions } from "../spaces/spaces.contract.js";
import type { FileAccess, LinkTarget } from "./attachments.contract.js";
import { assertCanRead, assertCanWrite, attachmentNotFound } from "./attachment-access.js";
import { emptyBody, newBlobKey, sniffType, storeBytes } from "./attachment-bytes.js";
import { ATTACHMENTS, type AttachmentDoc } from "./attachment-doc.js";
import { DEFAULT_TYPE, parseFilename, typeFromFilename, uploadLimitBytes } from "./attachment-fields.js";
import { toAttachmentJson } from "./attachment-json.js";
import type { AttachmentsHostMethods, NewAttachment } from "./attachments-methods.js";
import { parseCreateAttachment, type CreateAttachmentParams } from "./create-input.js";
import { checkLinks, parseMemoAttachmentNames, replaceLinks } from "./memo-links.js";
import { listBranches } from "./space-widening.js";
import { compileAttachmentFilter, parseAttachmentFilter } from "./filter/attachment-filter.js";
import { LONG_TRANSFER, UploadMixin, type UploadMethods, type UploadVars } from "./upload/upload.mixin.js";

const SEQUENCES = "attachment_sequences";
const LIST_ATTACHMENTS = "ListAttachments";
const LIST_MEMO_ATTACHMENTS = "ListMemoAttachments";
const BATCH_DELETE_MAX = 100;

/** ListAttachments orderBy fields (contract 6.4). */
const ORDER_FIELDS: Record<string, OrderField> = {
	create_time: { key: "createTime", isTime: true },
	filename: { key: "filename", isTime: false },
	mime_type: { key: "type", isTime: false },
	size: { key: "size", isTime: false }
};
const SORT_KEY_TYPES = { createTime: "number", filename: "string", type: "string", size: "number", seq: "number", memoPosition: "number" } as const;

/** The attachments service's methods: its own (attachments-methods.ts) and the upload mixin's. */
type AttachmentsMethods = AttachmentsHostMethods & UploadMethods;

type Ctx<P> = Context<P, RequestMeta>;



/** AttachmentService (contract 8) and the attachments of memos (7.9). */
const AttachmentsService: ServiceSchema<ServiceSettingSchema, AttachmentsMethods, UploadVars> = {
	name: "attachments",
	// Mixins are typed with their own `this`; `mixins` takes untyped schemas.
	mixins: [InstanceSettingsMixin as Partial<ServiceSchema>, UploadMixin as Partial<ServiceSchema>],

	actions: {
		/** POST /api/v1/attachments (contract 8.2): the bytes arrive as the call's stream. */
		createAttachment: {
			...LONG_TRANSFER,
			async handler(ctx: Ctx<CreateAttachmentParams>) {
				const caller = signedIn(ctx);
				const body = ctx.stream as Readable | null;
				try {
					const input = parseCreateAttachment(ctx.params);
					const limit = await this.uploadLimit();
					if (input.contentLength !== null && input.contentLength > limit) throw invalidArgument(`attachment is larger than the upload limit of ${limit} bytes`);
					const memo = input.memoId === null ? null : await this.checkOwnMemo(ctx, input.memoId, caller);
					if ((await this.attachmentCollection().count({ _id: input.id })) > 0) throw alreadyExists(`attachment "attachments/${input.id}" already exists`);
					let stored: NewAttachment["stored"] = null;
					if (input.externalLink === "") {
						const key = newBlobKey();
						const source = input.contentLength !== null && body ? body : emptyBody();
						stored = { key, ...(await storeBytes(blobsOf(this.broker), key, source, input.contentLength ?? 0)) };
					}
					const now = ctx.meta.requestTime ?? Date.now();
					const doc = await this.insertAttachment({ ...input, creatorId: caller.id, stored }, now, memo);
					return toAttachmentJson(doc);
				} finally {
					body?.destroy();
				}
			}
		},

		/** GET /api/v1/attachments (contract 8.1): the caller's own attachments (and a space's readable ones), filtered, ordered; pageSize + 1 entries per branch. */
		listAttachments: {
			async handler(ctx: Ctx<Record<string, unknown>>) {
				const caller = signedIn(ctx);
				const filterText = queryStringOf(ctx.params.filter, "filter");
				const orderBy = queryStringOf(ctx.params.orderBy, "orderBy");
				const filter = parseAttachmentFilter(filterText);
				const sort = parseOrderBy(orderBy, ORDER_FIELDS, "create_time desc");
				const pageSize = pageSizeParam(ctx.params.pageSize);
				const bound = { filter: filterText ?? "", orderBy: orderBy ?? "", caller: caller.id };
				const isMember = typeof filter.spaceId === "string" && (await this.isSpaceMember(ctx, filter.spaceId, caller));
				const page = await listPage(this.attachmentCollection(), {
					operation: LIST_ATTACHMENTS,
					query: bound,
					pageSize,
					pageToken: queryStringOf(ctx.params.pageToken, "pageToken"),
					sort,
					keyTypes: SORT_KEY_TYPES,
					branches: listBranches(caller, filter.spaceId, isMember),
					where: compileAttachmentFilter(filter, ctx.meta.requestTime ?? Date.now())
				});
				return { attachments: page.items.map(toAttachmentJson), nextPageToken: page.nextPageToken };
			}
		},

		/** GET /api/v1/attachments/{attachment} (contract 8.1). */
		getAttachment: {
			async handler(ctx: Ctx<{ attachment?: unknown }>) {
				const id = pathId(ctx.params.attachment);
				const doc = await this.attachmentCollection().findOne({ _id: id });
				const memos = doc?.memoId ? await this.memoInfo(ctx, [doc.memoId]) : new Map<string, MemoAccessInfo>();
				assertCanRead(doc, id, ctx.meta.user ?? null, doc?.memoId ? memos.get(doc.memoId) : undefined);
				return toAttachmentJson(doc);
			}
		},

		/** PATCH /api/v1/attachments/{attachment} (contract 8.3): `filename` only. */
		updateAttachment: {
			async handler(ctx: Ctx<{ attachment?: unknown; updateMask?: unknown; patch?: Record<string, unknown> }>) {
				const caller = signedIn(ctx);
				const id = pathId(ctx.params.attachment);
				parseUpdateMask(queryStringOf(ctx.params.updateMask, "updateMask"), ["filename"], { required: true });
				const filename = parseFilename(fieldOf(messageOf(ctx.params.patch, "attachment"), "filename"), "attachment.filename");
				const attachments = this.attachmentCollection();
				assertCanWrite(await attachments.findOne({ _id: id }), id, caller);
				const updated = await attachments.findOneAndUpdate({ _id: id }, { $set: { filename } });
				if (updated === null) throw attachmentNotFound(id);
				return toAttachmentJson(updated);
			}
		},

		/** DELETE /api/v1/attachments/{attachment} (contract 8.3): record and bytes. */
		deleteAttachment: {
			async handler(ctx: Ctx<{ attachment?: unknown }>): Promise<void> {
				const caller = signedIn(ctx);
				const id = pathId(ctx.params.attachment);
				const doc = await this.attachmentCollection().findOne({ _id: id });
				assertCanWrite(doc, id, caller);
				await this.removeAttachments([doc]);
			}
		},

		/** POST /api/v1/attachments:batchDelete (contract 8.3): every name checked first, then all deleted. */
		batchDeleteAttachments: {
			async handler(ctx: Ctx<{ names?: unknown }>): Promise<void> {
				const caller = signedIn(ctx);
				const names = ctx.params.names;
				if (!Array.isArray(names) || names.length < 1 || names.length > BATCH_DELETE_MAX) {
					throw invalidArgument(`names must list 1 to ${BATCH_DELETE_MAX} attachment names`);
				}
				const ids = [...new Set(names.map((name, i) => parseName("attachment", typeof name === "string" ? name : "", `names[${i}]`)))];
				const docs = await this.attachmentCollection().find({ _id: { $in: ids } });
				const byId = new Map(docs.map(doc => [doc._id, doc]));
				for (const id of ids) if (!byId.has(id)) throw attachmentNotFound(id);
				for (const id of ids) assertCanWrite(byId.get(id) ?? null, id, caller);
				await this.removeAttachments(docs);
			}
		},

		/** PATCH /api/v1/memos/{memo}/attachments (contract 7.9): replaces the memo's set. */
		setMemoAttachments: {
			async handler(ctx: Ctx<{ memo?: unknown; attachments?: unknown }>): Promise<void> {
				const caller = signedIn(ctx);
				const memoId = pathId(ctx.params.memo);
				const ids = parseMemoAttachmentNames(ctx.params.attachments);
				const memo = (await this.memoInfo(ctx, [memoId])).get(memoId);
				if (memo === undefined) throw notFound(`memo "memos/${memoId}" not found`);
				if (caller.id !== memo.creatorId && caller.role !== "ADMIN") throw permissionDenied(`only the creator or an admin may set the attachments of memo "memos/${memoId}"`);
				await checkLinks(this.attachmentCollection(), memo, ids);
				await replaceLinks(this.attachmentCollection(), memo, ids);
				await call(ctx, memosActions.touch, { memoId, time: ctx.meta.requestTime ?? Date.now() });
			}
		},

		/**
		 * For the memos service: the `attachments` of CreateMemo and UpdateMemo (contract 7.3, 7.5)
		 * under the rules of SetMemoAttachments, checked first (`apply` false), applied once the
		 * memo is written (`apply` true).
		 */
		linkForMemo: {
			visibility: "public",
			/** Applying answers the memo's attachments in display order, so that CreateMemo needs no third call. */
			async handler(ctx: Ctx<{ memo: LinkTarget; attachments?: unknown; apply?: boolean }>): Promise<Record<string, unknown>[] | undefined> {
				const ids = parseMemoAttachmentNames(ctx.params.attachments);
				if (ctx.params.apply !== true) {
					await checkLinks(this.attachmentCollection(), ctx.params.memo, ids);
					return undefined;
				}
				await replaceLinks(this.attachmentCollection(), ctx.params.memo, ids);
				const linked = await this.attachmentCollection().find({ memoId: ctx.params.memo.id }, { sort: { memoPosition: 1, seq: 1 } });
				return linked.map(toAttachmentJson);
			}
		},

		/** GET /api/v1/memos/{memo}/attachments (contract 7.9): the memo's read rule, display order. */
		listMemoAttachments: {
			async handler(ctx: Ctx<{ memo?: unknown; pageSize?: unknown; pageToken?: unknown }>) {
				const memoId = pathId(ctx.params.memo);
				const memo = (await this.memoInfo(ctx, [memoId])).get(memoId);
				if (memo === undefined || memo.read === "NOT_FOUND") throw notFound(`memo "memos/${memoId}" not found`);
				if (memo.read === "UNAUTHENTICATED") throw unauthenticated();
				if (memo.read === "PERMISSION_DENIED") throw permissionDenied(`no read access to memo "memos/${memoId}"`);
				const pageSize = pageSizeParam(ctx.params.pageSize);
				const sort = { memoPosition: 1, seq: 1 } as const;
				const bound = { memo: memoId };
				const page = await listPage(this.attachmentCollection(), {
					operation: LIST_MEMO_ATTACHMENTS,
					query: bound,
					pageSize,
					pageToken: queryStringOf(ctx.params.pageToken, "pageToken"),
					sort,
					keyTypes: SORT_KEY_TYPES,
					branches: [{ memoId }]
				});
				return { attachments: page.items.map(toAttachmentJson), nextPageToken: page.nextPageToken };
			}
		},

		/** For the memos service: the attachments of memos in display order, one call per request (contract 4.1). */
		forMemos: {
			visibility: "public",
			async handler(ctx: Ctx<{ memoIds?: string[] }>): Promise<Record<string, Record<string, unknown>[]>> {
				const memoIds = [...new Set(ctx.params.memoIds ?? [])];
				const result: Record<string, Record<string, unknown>[]> = {};
				if (memoIds.length === 0) return result;
				const docs = await this.attachmentCollection().find({ memoId: { $in: memoIds } }, { sort: { memoId: 1, memoPosition: 1, seq: 1 } });
				for (const doc of docs) (result[doc.memoId as string] ??= []).push(toAttachmentJson(doc));
				return result;
			}
		},

		/** For the memos service: a purged memo takes its attachments and their bytes along (contract 7.6). */
		deleteForMemos: {
			visibility: "public",
			async handler(ctx: Ctx<{ memoIds?: string[] }>): Promise<void> {
				const memoIds = ctx.params.memoIds ?? [];
				if (memoIds.length === 0) return;
				await this.removeAttachments(await this.attachmentCollection().find({ memoId: { $in: memoIds } }));
			}
		},

		/** For InstanceStats (contract 4.11, services/instance/stats.ts): counters of what this service owns. */
		stats: {
			visibility: "public",
			async handler(): Promise<{ attachmentCount: number; attachmentBytes: number; localStorageBytes: number }> {
				const sizes = await this.attachmentCollection().find({}, { projection: { size: 1 } });
				const attachmentBytes = sizes.reduce((sum, doc) => sum + doc.size, 0);
				// Local files hold exactly the stored attachments' bytes; S3 usage is not ours to measure.
				return { attachmentCount: sizes.length, attachmentBytes, localStorageBytes: blobsOf(this.broker).kind === "local" ? attachmentBytes : -1 };
			}
		},

		/** For DeleteUser (contract 2.4): every attachment of the user, with its bytes; idempotent. */
		deleteUserData: {
			visibility: "public",
			async handler(ctx: Ctx<{ userId?: string }>): Promise<void> {
				const userId = ctx.params.userId;
				if (typeof userId !== "string" || userId === "") return;
				await this.removeAttachments(await this.attachmentCollection().find({ creatorId: userId }));
				for (const session of this.uploads.all()) if (session.userId === userId) await this.discardUpload(session);
			}
		},

		/** For the memos service: a soft-deleted memo's attachments are kept but neither listed nor served (contract 7.6). */
		setMemosDeleted: {
			visibility: "public",
			async handler(ctx: Ctx<{ memoIds?: string[]; deleted?: boolean }>): Promise<void> {
				const memoIds = ctx.params.memoIds ?? [];
				if (memoIds.length === 0) return;
				await this.attachmentCollection().update({ memoId: { $in: memoIds } }, { $set: { memoDeleted: ctx.params.deleted === true } }, { multi: true });
			}
		},

		/** For the memos service: a memo moved to another space, or became readable or unreadable in its space (contract 7.5, 8.1). */
		followMemo: {
			visibility: "public",
			async handler(ctx: Ctx<{ memoId?: string; spaceId?: string | null; spaceReadable?: boolean }>): Promise<void> {
				const { memoId, spaceId = null, spaceReadable = false } = ctx.params;
				if (typeof memoId !== "string") return;
				await this.attachmentCollection().update({ memoId }, { $set: { spaceId, memoSpaceReadable: spaceReadable } }, { multi: true });
			}
		},

		/** For the memos service: the memos of a deleted space left it (contract 9). */
		leaveSpace: {
			visibility: "public",
			async handler(ctx: Ctx<{ spaceId?: string }>): Promise<void> {
				const spaceId = ctx.params.spaceId;
				if (typeof spaceId !== "string" || spaceId === "") return;
				await this.attachmentCollection().update({ spaceId }, { $set: { spaceId: null, memoSpaceReadable: false } }, { multi: true });
			}
		},

		/** For the file route (services/gateway/file-route.ts): access (contract 8.5) and what the headers need. */
		fileInfo: {
			visibility: "public",
			async handler(ctx: Ctx<{ attachment?: unknown; shareToken?: unknown }>): Promise<FileAccess> {
				const id = pathId(ctx.params.attachment);
				const doc = await this.attachmentCollection().findOne({ _id: id });
				// External links have no bytes here; a soft-deleted memo's attachments are not served.
				if (doc === null || doc.blobKey === null || doc.memoDeleted) throw attachmentNotFound(id);
				// A share token grants its memo's attachments to whoever holds it, and anything else it names is NOT_FOUND (contract 8.5).
				if (ctx.params.shareToken !== undefined) {
					const shared = doc.memoId === null ? null : await call(ctx, memosActions.resolveShare, { token: ctx.params.shareToken });
					if (shared === null || shared.memoId !== doc.memoId) throw notFound("share link not found");
					return { size: doc.size, sha256: doc.sha256, type: doc.type, filename: doc.filename, createTime: doc.createTime, publicRead: false };
				}
				const memo = doc.memoId === null ? undefined : (await this.memoInfo(ctx, [doc.memoId])).get(doc.memoId);
				assertCanRead(doc, id, ctx.meta.user ?? null, memo);
				return { size: doc.size, sha256: doc.sha256, type: doc.type, filename: doc.filename, createTime: doc.createTime, publicRead: memo?.publicRead ?? false };
			}
		},

		/** For the file route: the bytes, or one range of them, as a stream. */
		fileStream: {
			visibility: "public",
			async handler(ctx: Ctx<{ attachment?: unknown; range?: ByteRange }>): Promise<Readable> {
				const id = pathId(ctx.params.attachment);
				const doc = await this.attachmentCollection().findOne({ _id: id });
				if (doc === null || doc.blobKey === null) throw attachmentNotFound(id);
				try {
					return await blobsOf(this.broker).get(doc.blobKey, ctx.params.range);
				} catch (err) {
					if (err instanceof BlobNotFoundError) throw attachmentNotFound(id);
					throw err;
				}
			}
		}
	},

	methods: {
		attachmentCollection(): Collection<AttachmentDoc> {
			return documentsOf(this.broker).collection<AttachmentDoc>(ATTACHMENTS);
		},

		async nextSeq(): Promise<number> {
			return nextSequence(documentsOf(this.broker), SEQUENCES, ATTACHMENTS);
		},

		async uploadLimit(): Promise<number> {
			return uploadLimitBytes(await this.instanceSetting("STORAGE"));
		},

		async memoInfo(ctx: Context, memoIds: Iterable<string>): Promise<Map<string, MemoAccessInfo>> {
			const ids = [...new Set(memoIds)];
			if (ids.length === 0) return new Map();
			const infos = await call(ctx, memosActions.accessInfo, { memoIds: ids });
			return new Map(infos.map(info => [info.id, info]));
		},

		async isSpaceMember(ctx: Context, spaceId: string, caller: Caller): Promise<boolean> {
			const found = await call(ctx, spacesActions.spaceMembers, { spaceId, userIds: [caller.id] });
			return Object.hasOwn(found.roles, caller.id);
		},

		async checkOwnMemo(ctx: Context, memoId: string, caller: Caller): Promise<MemoAccessInfo> {
			const memo = (await this.memoInfo(ctx, [memoId])).get(memoId);
			if (memo === undefined || memo.read === "NOT_FOUND") throw notFound(`memo "memos/${memoId}" not found`);
			if (memo.creatorId !== caller.id) throw permissionDenied(`only the creator of memo "memos/${memoId}" may attach files to it`);
			return memo;
		},

		async insertAttachment(attachment: NewAttachment, now: number, memo: MemoAccessInfo | null): Promise<AttachmentDoc> {
			const { stored } = attachment;
			let type = attachment.type;
			if (type === "") type = typeFromFilename(attachment.filename);
			if (type === "" && stored !== null) type = await sniffType(stored.head);
			let memoPosition = 0;
			if (memo !== null) {
				const [lastLinked] = await this.attachmentCollection().find({ memoId: memo.id }, { sort: { memoPosition: -1 }, limit: 1 });
				memoPosition = (lastLinked?.memoPosition ?? -1) + 1;
			}
			const doc: AttachmentDoc = {
				_id: attachment.id,
				seq: await this.nextSeq(),
				creatorId: attachment.creatorId,
				filename: attachment.filename,
				type: type === "" ? DEFAULT_TYPE : type,
				size: stored?.size ?? 0,
				externalLink: attachment.externalLink,
				sha256: stored?.sha256 ?? "",
				blobKey: stored?.key ?? null,
				memoId: memo?.id ?? null,
				memoPosition,
				spaceId: memo?.spaceId ?? null,
				memoSpaceReadable: memo?.spaceReadable ?? false,
				memoDeleted: false,
				createTime: now
			};
			if (attachment.motionMedia !== undefined) doc.motionMedia = attachment.motionMedia;
			if (attachment.mediaMetadata !== undefined) doc.mediaMetadata = attachment.mediaMetadata;
			try {
				await this.attachmentCollection().insert(doc);
			} catch (err) {
				if (stored !== null) await blobsOf(this.broker).delete(stored.key);
				if (err instanceof DuplicateKeyError) throw alreadyExists(`attachment "attachments/${attachment.id}" already exists`);
				throw err;
			}
			countAttachmentBytes(this.broker, doc.size);
			return doc;
		},

		async removeAttachments(docs: AttachmentDoc[]): Promise<void> {
			if (docs.length === 0) return;
			await this.attachmentCollection().remove({ _id: { $in: docs.map(doc => doc._id) } }, { multi: true });
			const blobs = blobsOf(this.broker);
			for (const doc of docs) if (doc.blobKey !== null) await blobs.delete(doc.blobKey);
		}
	},

	async started() {
		const attachments = this.attachmentCollection();
		// ListAttachments branches (space-widening.ts): the owner or the space first, then each sort key with the sequence tie-break.
		for (const key of ["createTime", "filename", "type", "size"]) {
			await attachments.ensureIndex({ fields: { creatorId: 1, memoDeleted: 1, [key]: -1, seq: -1 } });
			await attachments.ensureIndex({ fields: { spaceId: 1, memoDeleted: 1, memoSpaceReadable: 1, [key]: -1, seq: -1 } });
		}
		// A memo's attachments in display order, ties by sequence (ListMemoAttachments, forMemos).
		await attachments.ensureIndex({ fields: { memoId: 1, memoPosition: 1, seq: 1 } });
	}
};

export default AttachmentsService;
