import type { Readable } from "node:stream";
import type { ByteRange } from "../../shared/blob/blob-store.js";
import { defineAction, defineApiAction, type ApiAnswer, type REQUEST_HEADERS_PARAM, type STREAM_LENGTH_PARAM } from "../../shared/contract.js";
import type { UserDataParams } from "../auth/auth.contract.js";

/** The attachments service's published boundary: what other services and the gateway may use of it. */

/** Inline content and upload chunks are bounded by these (the gateway's body limits, contract 19). */
export { uploadLimitBytes } from "./attachment-fields.js";
export { MAX_CHUNK_BYTES } from "./upload/upload-sessions.js";

/** The memo a set of attachments is linked to, as the memos service describes it. */
export interface LinkTarget {
	id: string;
	creatorId: string;
	spaceId: string | null;
	/** Members of its space can read it (space-widening.ts). */
	spaceReadable: boolean;
}

/** What the `/file` route needs to answer with the bytes of an attachment. */
export interface FileInfo {
	size: number;
	sha256: string;
	type: string;
	filename: string;
	/** Epoch milliseconds. */
	createTime: number;
}

/** What the attachments service tells the file route (`attachments.fileInfo`). */
export interface FileAccess extends FileInfo {
	/** The attachment's memo is readable by anyone (PUBLIC and NORMAL). */
	publicRead: boolean;
}

/** UploadAttachment: the opening spec, or a chunk of an upload whose bytes come as the call's stream. */
export interface UploadParams {
	spec?: unknown;
	uploadId?: unknown;
	offset?: unknown;
	[STREAM_LENGTH_PARAM]?: number;
}

/** Where tus uploads are created (the route table's rows); an upload's URL is this path and its id. */
export const TUS_PATH = "/api/v1/attachments:tus";

/** A tus request (upload/tus-upload.ts): the upload's id from the path and the request headers it reads; the bytes come as the call's stream. */
export interface TusParams {
	upload?: unknown;
	[REQUEST_HEADERS_PARAM]?: Record<string, string | undefined>;
}

export const attachmentsActions = {
	upload: defineAction<UploadParams, ApiAnswer>("attachments.upload"),
	createAttachment: defineApiAction("attachments.createAttachment"),
	/** tus (`TUS_PATH`): answers with no body; status and headers travel in the response meta (`$statusCode`, `$responseHeaders`). */
	tusCreate: defineAction<TusParams, null>("attachments.tusCreate"),
	tusState: defineAction<TusParams, null>("attachments.tusState"),
	tusPatch: defineAction<TusParams, null>("attachments.tusPatch"),
	tusTerminate: defineAction<TusParams, null>("attachments.tusTerminate"),
	listAttachments: defineApiAction("attachments.listAttachments"),
	getAttachment: defineApiAction("attachments.getAttachment"),
	updateAttachment: defineApiAction("attachments.updateAttachment"),
	deleteAttachment: defineApiAction("attachments.deleteAttachment"),
	batchDeleteAttachments: defineApiAction("attachments.batchDeleteAttachments"),
	setMemoAttachments: defineApiAction("attachments.setMemoAttachments"),
	listMemoAttachments: defineApiAction("attachments.listMemoAttachments"),
	/**
	 * Checks (`apply: false`) or replaces (`apply: true`) the attachments linked to a memo
	 * (contract 7.9); checking answers the names as checked (`{ name }` in display order),
	 * applying the memo's attachments in display order.
	 */
	linkForMemo: defineAction<{ memo: LinkTarget; attachments?: unknown; apply?: boolean }, Record<string, unknown>[]>("attachments.linkForMemo"),
	/** The attachments of these memos in display order, as Attachment messages by memo id. */
	forMemos: defineAction<{ memoIds: string[] }, Record<string, Record<string, unknown>[]>>("attachments.forMemos"),
	deleteForMemos: defineAction<{ memoIds: string[] }, void>("attachments.deleteForMemos"),
	setMemosDeleted: defineAction<{ memoIds: string[]; deleted: boolean }, void>("attachments.setMemosDeleted"),
	/** A memo's space or its readability in the space changed. */
	followMemo: defineAction<{ memoId: string; spaceId: string | null; spaceReadable: boolean }, void>("attachments.followMemo"),
	/** A space was deleted: its attachments leave it. */
	leaveSpace: defineAction<{ spaceId: string }, void>("attachments.leaveSpace"),
	fileInfo: defineAction<{ attachment: string; shareToken?: string }, FileAccess>("attachments.fileInfo"),
	/** The bytes of an attachment (all, or an inclusive range), as a stream. */
	fileStream: defineAction<{ attachment: string; range?: ByteRange }, Readable>("attachments.fileStream"),
	stats: defineAction<undefined, { attachmentCount: number; attachmentBytes: number; localStorageBytes: number }>("attachments.stats"),
	deleteUserData: defineAction<UserDataParams, void>("attachments.deleteUserData")
} as const;
