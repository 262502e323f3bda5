import { STREAM_LENGTH_PARAM } from "../../shared/contract.js";
import { invalidArgument } from "../../shared/errors.js";
import { checkJsonObjectField } from "../../shared/free-form.js";
import { resolveId } from "../../shared/ids.js";
import { fieldOf, messageOf, optionalMessageOf, stringOf } from "../../shared/request-message.js";
import { parseExternalLink, parseFilename, parseMemoRef, parseType } from "./attachment-fields.js";

/** CreateAttachment's params as the gateway builds them (the `content` bytes travel as the call's stream). */
export interface CreateAttachmentParams {
	attachmentId?: unknown;
	attachment?: unknown;
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
	const body = messageOf(params.attachment, "attachment");
	const filename = parseFilename(fieldOf(body, "filename"), "attachment.filename");
	const type = parseType(fieldOf(body, "type"), "attachment.type");
	const externalLink = parseExternalLink(fieldOf(body, "externalLink"), "attachment.externalLink");
	const length = params[STREAM_LENGTH_PARAM];
	const contentLength = typeof length === "number" ? length : null;
	if (contentLength !== null && externalLink !== "") throw invalidArgument("attachment.content and attachment.externalLink are mutually exclusive");
	const memoId = parseMemoRef(fieldOf(body, "memo"), "attachment.memo");
	const input: CreateAttachmentInput = {
		id: resolveId(stringOf(params.attachmentId, "attachmentId"), "attachmentId", "attachment"),
		filename,
		type,
		externalLink,
		contentLength,
		memoId
	};
	// Stored and echoed as given, provided they are objects within the limits of free-form JSON.
	const motionMedia = optionalMessageOf(fieldOf(body, "motionMedia"), "attachment.motionMedia");
	const mediaMetadata = optionalMessageOf(fieldOf(body, "mediaMetadata"), "attachment.mediaMetadata");
	if (motionMedia !== undefined) input.motionMedia = checkJsonObjectField(motionMedia, "attachment.motionMedia");
	if (mediaMetadata !== undefined) input.mediaMetadata = checkJsonObjectField(mediaMetadata, "attachment.mediaMetadata");
	return input;
}
