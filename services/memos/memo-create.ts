import { invalidArgument } from "../../shared/errors.js";
import { resolveId } from "../../shared/ids.js";
import { fieldOf, messageOf } from "../../shared/request-message.js";
import type { MemoLocation, Visibility } from "./memo-doc.js";
import {
	readContent,
	readLocation,
	readPinned,
	readSpace,
	readTime,
	readVisibility
} from "./memo-fields.js";

export interface CreateMemoParams {
	memoId?: unknown;
	memo?: unknown;
}

/** What a CreateMemo request asks for, validated (contract 7.3). */
export interface CreateMemoInput {
	id: string;
	content: string;
	visibility: Visibility;
	pinned: boolean;
	location: MemoLocation | null;
	spaceId: string | null;
	createTime: number | undefined;
	updateTime: number | undefined;
	/** The body's `attachments`, unparsed: the attachments service applies them (contract 7.3, 7.9). */
	attachments: unknown;
}

/**
 * `memoId` per contract 1.5 (generated when empty), content within `contentLimit` UTF-8
 * bytes, visibility `defaultVisibility` (the creator's GENERAL setting) when unspecified and SPACE only with a space. `state` and output-only
 * fields are ignored.
 */
export function parseCreateMemo(params: CreateMemoParams, contentLimit: number, defaultVisibility: Visibility = "PRIVATE"): CreateMemoInput {
	if (params.memoId !== undefined && typeof params.memoId !== "string") throw invalidArgument("memoId must be a string");
	const id = resolveId(params.memoId, "memoId", "memo");
	const body = messageOf(params.memo, "memo");
	const content = readContent(fieldOf(body, "content"), contentLimit);
	const visibility = readVisibility(fieldOf(body, "visibility"), defaultVisibility);
	const spaceId = readSpace(fieldOf(body, "space"));
	if (visibility === "SPACE" && spaceId === null) throw invalidArgument("visibility SPACE requires a space");
	return {
		id,
		content,
		visibility,
		pinned: readPinned(fieldOf(body, "pinned")),
		location: readLocation(fieldOf(body, "location")),
		spaceId,
		createTime: readTime(fieldOf(body, "createTime"), "createTime"),
		updateTime: readTime(fieldOf(body, "updateTime"), "updateTime"),
		attachments: fieldOf(body, "attachments")
	};
}
