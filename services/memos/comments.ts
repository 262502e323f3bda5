import type { Context } from "moleculer";
import type { Caller, RequestMeta } from "../../shared/caller.js";
import { failedPrecondition, invalidArgument, unauthenticated } from "../../shared/errors.js";
import { pathId } from "../../shared/ids.js";
import { listPage, pageSizeParam } from "../../shared/paging/list-page.js";
import type { Filter } from "../../shared/store/document-store.js";
import { parseCommentOrderBy } from "./filter/order-by.js";
import { assertReadable } from "./memo-access.js";
import type { MemosActions } from "./memos-schema.js";
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

type CommentCtx<P> = Context<P, RequestMeta>;

function text(value: unknown, name: string): string {
	if (value === undefined) return "";
	if (typeof value !== "string") throw invalidArgument(`${name} must be given once, as a string`);
	return value;
}

export const commentActions: MemosActions = {
	/**
	 * CreateMemoComment (contract 7.7): an independent memo whose `parentId` is its COMMENT
	 * relation, so the memo and the relation are one insert. It inherits nothing.
	 */
	createMemoComment: {
		async handler(ctx: CommentCtx<{ memo?: unknown; commentId?: unknown; comment?: unknown }>) {
			const caller = ctx.meta.user;
			if (!caller) throw unauthenticated();
			const parentId = pathId(ctx.params.memo);
			const memos = this.memoCollection();
			const parent = await memos.findOne({ _id: parentId });
			assertReadable(parent, parentId, caller, await this.callerSpaces(ctx));
			if (parent.state !== "NORMAL") throw failedPrecondition(`memo "memos/${parentId}" is archived and cannot be commented on`);
			const json = await this.insertMemo(ctx, { memoId: ctx.params.commentId, memo: ctx.params.comment }, parentId);
			// A parent deleted while the comment was written would not have detached it: do it now.
			if ((await memos.findOne({ _id: parentId, deleteTime: null })) === null) {
				const id = String(json.name).slice("memos/".length);
				await memos.update({ _id: id, parentId }, { $set: { parentId: null } });
				const [detached] = await this.memoResponses(ctx, (await memos.find({ _id: id })));
				return detached;
			}
			return json;
		}
	},

	/** ListMemoComments (contract 7.7): read access to the memo; its comments the caller can read, ordered by orderBy. */
	listMemoComments: {
		async handler(ctx: CommentCtx<{ memo?: unknown; pageSize?: unknown; pageToken?: unknown; orderBy?: unknown }>) {
			const caller = ctx.meta.user ?? null;
			const parentId = pathId(ctx.params.memo);
			const pageSize = pageSizeParam(ctx.params.pageSize);
			const pageToken = text(ctx.params.pageToken, "pageToken");
			const orderBy = text(ctx.params.orderBy, "orderBy");
			const sort = parseCommentOrderBy(orderBy);
			const memos = this.memoCollection();
			const spaces = await this.callerSpaces(ctx);
			assertReadable(await memos.findOne({ _id: parentId }), parentId, caller, spaces);
			const bound = { memo: parentId, orderBy, caller: caller?.id ?? null };
			const page = await listPage(memos, {
				operation: LIST_MEMO_COMMENTS,
				query: bound,
				pageSize,
				pageToken,
				sort,
				keyTypes: SORT_KEY_TYPES,
				branches: readableCommentBranches(parentId, caller, [...spaces.keys()])
			});
			return { memos: await this.memoResponses(ctx, page.items), nextPageToken: page.nextPageToken };
		}
	}
};
