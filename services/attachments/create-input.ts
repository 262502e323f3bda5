import { invalidArgument } from "../../shared/errors.js";
import { resolveId } from "../../shared/ids.js";
import { parseName } from "../../shared/names.js";
import { STREAM_LENGTH_PARAM } from "../gateway/bytes-field.js";
import { parseExternalLink, parseFilename, parseOptionalObject, parseType } from "./attachment-fields.js";

/** CreateAttachment's params as the gateway builds them (the `content` bytes travel as the call's stream). */
export interface CreateAttachmentParams {
	attachmentId?: unknown;
	attachment?: Record<string, unknown>;
	[STREAM_LENGTH_PARAM]?: number;
}

export interface CreateAttachmentInput {
	id: string;
	filename: string;
	type: string;
	externalLink: string;
	/** Bytes in the call's stream; null when none were sent. */
	contentLength: number | null;
	memoId: string | null;
	motionMedia?: Record<string, unknown>;
	mediaMetadata?: Record<string, unknown>;
}

/** The body rules of contract 8.2, checked before any byte is stored. */
export function parseCreateAttachment(params: CreateAttachmentParams): CreateAttachmentInput {
	const body = params.attachment ?? {};
	const filename = parseFilename(body.filename, "attachment.filename");
	const type = parseType(body.type, "attachment.type");
	const externalLink = parseExternalLink(body.externalLink, "attachment.externalLink");
	const length = params[STREAM_LENGTH_PARAM];
	const contentLength = typeof length === "number" ? length : null;
	if (contentLength !== null && externalLink !== "") throw invalidArgument("attachment.content and attachment.externalLink are mutually exclusive");
	const memo = body.memo;
	const memoId = memo === undefined || memo === null || memo === "" ? null : parseName("memo", String(memo), "attachment.memo");
	const input: CreateAttachmentInput = {
		id: resolveId(typeof params.attachmentId === "string" ? params.attachmentId : undefined, "attachmentId", "attachment"),
		filename,
		type,
		externalLink,
		contentLength,
		memoId
	};
	const motionMedia = parseOptionalObject(body.motionMedia, "attachment.motionMedia");
	const mediaMetadata = parseOptionalObject(body.mediaMetadata, "attachment.mediaMetadata");
	if (motionMedia !== undefined) input.motionMedia = motionMedia;
	if (mediaMetadata !== undefined) input.mediaMetadata = mediaMetadata;
	return input;
}
