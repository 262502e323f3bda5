import type { Caller } from "../../shared/caller.js";
import { failedPrecondition } from "../../shared/errors.js";
import { listPage } from "../../shared/paging/list-page.js";
import type { Filter } from "../../shared/store/document-store.js";
import { parseCommentOrderBy } from "./filter/order-by.js";
import { assertReadable } from "./memo-access.js";
import { createMemo, type CreateMemoParams, type CreatedMemo } from "./memo-create.js";
import type { MemoDoc } from "./memo-doc.js";
import { memoChangeEvent } from "./memo-events.js";
import { memoEvents } from "./memos.contract.js";
import type { MemosDeps } from "./memos-deps.js";
import { groupedRead, pinnedSplit } from "./memos-store.js";
import { readableBranches } from "./readable-query.js";

const LIST_MEMO_COMMENTS = "ListMemoComments";

const SORT_KEY_TYPES = { createTime: "number", updateTime: "number", _id: "string", seq: "number" } as const;

/**
 * The comments of `parentId` that `caller` may read (contract 3.2, 7.7): NORMAL and not
 * deleted, and the caller's own or visible to them, as index-served branches.
 */
function readableCommentBranches(parentId: string, caller: Caller | null, spaceIds: readonly string[]): Filter[] {
	return readableBranches({ parentId, state: "NORMAL", deleteTime: null }, caller, spaceIds);
}

/**
 * CreateMemoComment (contract 7.7): an independent memo whose `parentId` is its COMMENT
 * relation, so the memo and the relation are one insert. It inherits nothing. Without its
 * attachments when the parent was deleted meanwhile (they are read again); null when the
 * comment is gone too.
 */
export async function createMemoComment(
	deps: MemosDeps,
	caller: Caller,
	parentId: string,
	params: CreateMemoParams,
	now: number
): Promise<CreatedMemo | { memo: MemoDoc; attachments?: undefined } | null> {
	const { memos } = deps.store;
	const parent = await memos.findOne({ _id: parentId });
	assertReadable(parent, parentId, caller, await deps.peers.spacesOf(caller));
	if (parent.state !== "NORMAL") throw failedPrecondition(`memo "memos/${parentId}" is archived and cannot be commented on`);
	const created = await createMemo(deps, caller, params, parent, now);
	// A parent deleted while the comment was written would not have detached it: do it now.
	if ((await memos.findOne({ _id: parentId, deleteTime: null })) === null) {
		const id = created.memo._id;
		await memos.update({ _id: id, parentId }, { $set: { parentId: null } });
		const detached = await memos.findOne({ _id: id });
		if (detached !== null) await deps.announce(memoEvents.created, memoChangeEvent(detached, caller, now));
		return detached === null ? null : { memo: detached };
	}
	await deps.announce(memoEvents.commentCreated, memoChangeEvent(created.memo, caller, now));
	return created;
}

/** ListMemoComments (contract 7.7): read access to the memo; its comments the caller can read, ordered by orderBy. */
export async function listMemoComments(
	deps: MemosDeps,
	caller: Caller | null,
	parentId: string,
	request: { pageSize: number; pageToken: string; orderBy: string }
): Promise<{ items: MemoDoc[]; nextPageToken: string }> {
	const { pageSize, pageToken, orderBy } = request;
	const sort = parseCommentOrderBy(orderBy);
	const { memos } = deps.store;
	const spaces = await deps.peers.spacesOf(caller);
	assertReadable(await memos.findOne({ _id: parentId }), parentId, caller, spaces);
	const bound = { memo: parentId, orderBy, caller: caller?.id ?? null };
	const groupedBy = groupedRead(sort);
	// Comments are memos: their compound orders are served by the same indexes (memos-store.ts).
	return listPage(memos, {
		operation: LIST_MEMO_COMMENTS,
		query: bound,
		pageSize,
		pageToken,
		sort,
		keyTypes: SORT_KEY_TYPES,
		branches: readableCommentBranches(parentId, caller, [...spaces.keys()]),
		...(pinnedSplit(sort) ? { splitBy: "pinned" } : {}),
		...(groupedBy === undefined ? {} : { groupedBy })
	});
}
