import { MAX_CHUNK_BYTES, TUS_PATH, attachmentsActions } from "../../attachments/attachments.contract.js";
import type { RouteSpec } from "../route-spec.js";
import { ATTACHMENT_BODY } from "../body-limits.js";

/**
 * AttachmentService (contract 8) and the attachments of a memo (7.9), which the attachments
 * service serves because it owns the records. The bytes (`/file/attachments/…`) are served
 * outside `/api/v1` (file-route.ts).
 */
/** tus 1.0 (services/attachments/upload/tus-upload.ts): every answer names the protocol version, and the versions served (which a 412 must name). */
const TUS = { responseHeaders: { "Tus-Resumable": "1.0.0", "Tus-Version": "1.0.0" } } as const;
const TUS_HEADERS = ["tus-resumable", "content-type", "content-length", "transfer-encoding", "upload-offset"] as const;
const TUS_BODY = "application/offset+octet-stream";

export const attachmentsRoutes: RouteSpec[] = [
	{
		operation: "ListAttachments",
		method: "GET",
		path: "/api/v1/attachments",
		action: attachmentsActions.listAttachments,
		access: "signed-in",
		summary: "The caller's attachments, filtered, ordered and paginated."
	},
	{
		operation: "CreateAttachment",
		method: "POST",
		path: "/api/v1/attachments",
		action: attachmentsActions.createAttachment,
		access: "signed-in",
		body: "attachment",
		bytesField: "attachment.content",
		bodyLimit: ATTACHMENT_BODY,
		summary: "Creates an attachment from base64 content or an external link."
	},
	{
		operation: "BatchDeleteAttachments",
		method: "POST",
		path: "/api/v1/attachments:batchDelete",
		action: attachmentsActions.batchDeleteAttachments,
		access: "signed-in",
		body: "*",
		empty: true,
		summary: "Deletes 1 to 100 attachments, all or nothing."
	},
	{
		operation: "UploadAttachment",
		method: "POST",
		path: "/api/v1/attachments:upload",
		action: attachmentsActions.upload,
		access: "signed-in",
		body: "*",
		bytesField: "content",
		bodyLimit: { base64: MAX_CHUNK_BYTES },
		summary: "Chunked upload: opens a session with spec, continues it with uploadId, offset and content."
	},
	{
		operation: "TusCreateUpload",
		method: "POST",
		path: TUS_PATH,
		action: attachmentsActions.tusCreate,
		access: "signed-in",
		...TUS,
		streamBody: TUS_BODY,
		requestHeaders: [...TUS_HEADERS, "upload-length", "upload-defer-length", "upload-metadata"],
		summary: "tus 1.0 creation (and creation-with-upload): a resumable upload of Upload-Length bytes that becomes an attachment."
	},
	{
		operation: "TusUploadOffset",
		method: "HEAD",
		path: `${TUS_PATH}/{upload}`,
		action: attachmentsActions.tusState,
		access: "signed-in",
		...TUS,
		requestHeaders: TUS_HEADERS,
		summary: "tus 1.0: the upload's Upload-Offset and Upload-Length."
	},
	{
		operation: "TusAppendUpload",
		method: "PATCH",
		path: `${TUS_PATH}/{upload}`,
		action: attachmentsActions.tusPatch,
		access: "signed-in",
		...TUS,
		streamBody: TUS_BODY,
		requestHeaders: TUS_HEADERS,
		summary: "tus 1.0: appends the raw request body at Upload-Offset."
	},
	{
		operation: "TusTerminateUpload",
		method: "DELETE",
		path: `${TUS_PATH}/{upload}`,
		action: attachmentsActions.tusTerminate,
		access: "signed-in",
		...TUS,
		requestHeaders: TUS_HEADERS,
		summary: "tus 1.0 termination: discards the upload and its received bytes."
	},
	{
		operation: "GetAttachment",
		method: "GET",
		path: "/api/v1/attachments/{attachment}",
		action: attachmentsActions.getAttachment,
		access: "public-instance",
		summary: "One attachment's metadata, if the caller can read it."
	},
	{
		operation: "UpdateAttachment",
		method: "PATCH",
		path: "/api/v1/attachments/{attachment}",
		action: attachmentsActions.updateAttachment,
		access: "signed-in",
		// Not `attachment`: the path parameter of that name would replace it (path parameters win).
		body: "patch",
		idempotent: true,
		summary: "Renames an attachment (updateMask filename)."
	},
	{
		operation: "DeleteAttachment",
		method: "DELETE",
		path: "/api/v1/attachments/{attachment}",
		action: attachmentsActions.deleteAttachment,
		access: "signed-in",
		empty: true,
		summary: "Deletes an attachment and its bytes."
	},
	{
		operation: "ListMemoAttachments",
		method: "GET",
		path: "/api/v1/memos/{memo}/attachments",
		action: attachmentsActions.listMemoAttachments,
		access: "public-instance",
		summary: "The attachments of a memo the caller can read, in display order."
	},
	{
		operation: "SetMemoAttachments",
		method: "PATCH",
		path: "/api/v1/memos/{memo}/attachments",
		action: attachmentsActions.setMemoAttachments,
		access: "signed-in",
		body: "*",
		empty: true,
		idempotent: true,
		summary: "Replaces the attachments of a memo (order kept, duplicates collapsed, dropped ones unlinked)."
	}
];
