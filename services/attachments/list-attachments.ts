import type { Caller } from "../../shared/caller.js";
import { parseOrderBy, type OrderField } from "../../shared/cel/order-by.js";
import { notFound, permissionDenied, unauthenticated } from "../../shared/errors.js";
import { listPage, pageSizeParam } from "../../shared/paging/list-page.js";
import { queryStringOf } from "../../shared/request-message.js";
import type { AttachmentDoc } from "./attachment-doc.js";
import type { AttachmentsDeps } from "./attachments-deps.js";
import { compileAttachmentFilter, parseAttachmentFilter } from "./filter/attachment-filter.js";
import { listBranches } from "./space-widening.js";

const LIST_ATTACHMENTS = "ListAttachments";
const LIST_MEMO_ATTACHMENTS = "ListMemoAttachments";

/** ListAttachments orderBy fields (contract 6.4). */
const ORDER_FIELDS: Record<string, OrderField> = {
	create_time: { key: "createTime", isTime: true },
	filename: { key: "filename", isTime: false },
	mime_type: { key: "type", isTime: false },
	size: { key: "size", isTime: false }
};
const SORT_KEY_TYPES = { createTime: "number", filename: "string", type: "string", size: "number", seq: "number", memoPosition: "number" } as const;

export interface AttachmentPage {
	attachments: AttachmentDoc[];
	nextPageToken: string;
}

export interface ListAttachmentsParams {
	filter?: unknown;
	orderBy?: unknown;
	pageSize?: unknown;
	pageToken?: unknown;
}

/** ListAttachments (contract 8.1): the caller's own attachments (and a space's readable ones), filtered, ordered; pageSize + 1 entries per branch. */
export async function listAttachments(deps: AttachmentsDeps, params: ListAttachmentsParams, caller: Caller, now: number): Promise<AttachmentPage> {
	const filterText = queryStringOf(params.filter, "filter");
	const orderBy = queryStringOf(params.orderBy, "orderBy");
	const filter = parseAttachmentFilter(filterText);
	const sort = parseOrderBy(orderBy, ORDER_FIELDS, "create_time desc");
	const pageSize = pageSizeParam(params.pageSize);
	const bound = { filter: filterText ?? "", orderBy: orderBy ?? "", caller: caller.id };
	const isMember = typeof filter.spaceId === "string" && (await deps.peers.isSpaceMember(filter.spaceId, caller.id));
	const page = await listPage(deps.store.attachments, {
		operation: LIST_ATTACHMENTS,
		query: bound,
		pageSize,
		pageToken: queryStringOf(params.pageToken, "pageToken"),
		sort,
		keyTypes: SORT_KEY_TYPES,
		branches: listBranches(caller, filter.spaceId, isMember),
		where: compileAttachmentFilter(filter, now)
	});
	return { attachments: await withoutUnreadableMemos(deps, page.items, caller), nextPageToken: page.nextPageToken };
}

/**
 * Leaves out attachments whose memo is deleted or gone while `memoDeleted` does not say so yet,
 * and others' attachments whose memo the caller cannot read while their space fields do not say
 * so yet: the memo is written before its attachments follow it (services/memos/memo-cleanup.ts,
 * memo-attachment-links.ts), so the memo decides and the page may come out shorter, never with
 * them. One call per page.
 */
async function withoutUnreadableMemos(deps: AttachmentsDeps, docs: AttachmentDoc[], caller: Caller): Promise<AttachmentDoc[]> {
	const memoIds = docs.flatMap(doc => (doc.memoId === null ? [] : [doc.memoId]));
	if (memoIds.length === 0) return docs;
	const live = await deps.peers.memoInfo(memoIds);
	return docs.filter(doc => {
		if (doc.memoId === null) return true;
		const memo = live.get(doc.memoId);
		return memo !== undefined && (doc.creatorId === caller.id || memo.read === "OK");
	});
}

/** ListMemoAttachments (contract 7.9): the memo's read rule, display order. */
export async function listMemoAttachments(deps: AttachmentsDeps, memoId: string, params: { pageSize?: unknown; pageToken?: unknown }): Promise<AttachmentPage> {
	const memo = (await deps.peers.memoInfo([memoId])).get(memoId);
	if (memo === undefined || memo.read === "NOT_FOUND") throw notFound(`memo "memos/${memoId}" not found`);
	if (memo.read === "UNAUTHENTICATED") throw unauthenticated();
	if (memo.read === "PERMISSION_DENIED") throw permissionDenied(`no read access to memo "memos/${memoId}"`);
	const pageSize = pageSizeParam(params.pageSize);
	const sort = { memoPosition: 1, seq: 1 } as const;
	const bound = { memo: memoId };
	const page = await listPage(deps.store.attachments, {
		operation: LIST_MEMO_ATTACHMENTS,
		query: bound,
		pageSize,
		pageToken: queryStringOf(params.pageToken, "pageToken"),
		sort,
		keyTypes: SORT_KEY_TYPES,
		branches: [{ memoId }]
	});
	return { attachments: page.items, nextPageToken: page.nextPageToken };
}
