import { formatName } from "../../shared/names.js";
import { toInt64, toTimestamp } from "../../shared/proto-json.js";
import type { AttachmentDoc } from "./attachment-doc.js";

/**
 * The Attachment message (contract 4.6) with the default-emission rules of 1.3: `memo`,
 * `motionMedia` and `mediaMetadata` omitted when unset, `space` always present (null when none),
 * `content` never emitted.
 */
export function toAttachmentJson(doc: AttachmentDoc): Record<string, unknown> {
	const json: Record<string, unknown> = {
		name: formatName("attachment", doc._id),
		createTime: toTimestamp(doc.createTime),
		filename: doc.filename,
		externalLink: doc.externalLink,
		type: doc.type,
		size: toInt64(doc.size)
	};
	if (doc.memoId !== null) json.memo = formatName("memo", doc.memoId);
	json.space = doc.spaceId === null ? null : formatName("space", doc.spaceId);
	if (doc.motionMedia !== undefined) json.motionMedia = doc.motionMedia;
	if (doc.mediaMetadata !== undefined) json.mediaMetadata = doc.mediaMetadata;
	return json;
}
