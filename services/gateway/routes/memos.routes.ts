import { memosActions } from "../../memos/memos.contract.js";
import type { RouteSpec } from "../route-spec.js";
import { MEMO_BODY } from "../body-limits.js";

/**
 * MemoService (contract 7). Routes under `/api/v1/memos/-/…` go before the `{memo}` ones,
 * which would otherwise take `-` for a memo id.
 */
export const memosRoutes: RouteSpec[] = [
	{
		operation: "ListMemos",
		method: "GET",
		path: "/api/v1/memos",
		action: memosActions.listMemos,
		access: "public-instance",
		summary: "Memos the caller can read, filtered, ordered and paginated."
	},
	{
		operation: "CreateMemo",
		method: "POST",
		path: "/api/v1/memos",
		action: memosActions.createMemo,
		access: "signed-in",
		body: "memo",
		bodyLimit: MEMO_BODY,
		summary: "Creates a memo; the caller becomes its creator."
	},
	{
		operation: "GetLinkMetadata",
		method: "GET",
		path: "/api/v1/memos/-/linkMetadata",
		action: memosActions.getLinkMetadata,
		access: "public-instance",
		summary: "Title, description and image of a web page (fetched server-side, guarded)."
	},
	{
		operation: "BatchGetLinkMetadata",
		method: "POST",
		path: "/api/v1/memos/-/linkMetadata:batchGet",
		action: memosActions.batchGetLinkMetadata,
		access: "public-instance",
		body: "*",
		idempotent: true,
		summary: "Link metadata of 1-10 URLs, in input order."
	},
	{
		operation: "GetMemo",
		method: "GET",
		path: "/api/v1/memos/{memo}",
		action: memosActions.getMemo,
		access: "public-instance",
		summary: "One memo, if the caller can read it."
	},
	{
		operation: "UpdateMemo",
		method: "PATCH",
		path: "/api/v1/memos/{memo}",
		action: memosActions.updateMemo,
		access: "signed-in",
		// Not `memo`: the path parameter of that name would replace it (path parameters win).
		body: "patch",
		idempotent: true,
		bodyLimit: MEMO_BODY,
		summary: "Changes the fields named by updateMask."
	},
	{
		operation: "DeleteMemo",
		method: "DELETE",
		path: "/api/v1/memos/{memo}",
		action: memosActions.deleteMemo,
		access: "signed-in",
		empty: true,
		summary: "Soft-deletes a memo, or purges it with force."
	},
	{
		operation: "ListMemoComments",
		method: "GET",
		path: "/api/v1/memos/{memo}/comments",
		action: memosActions.listMemoComments,
		access: "public-instance",
		summary: "The comments of a memo the caller can read, ordered by orderBy."
	},
	{
		operation: "CreateMemoComment",
		method: "POST",
		path: "/api/v1/memos/{memo}/comments",
		action: memosActions.createMemoComment,
		access: "signed-in",
		body: "comment",
		bodyLimit: MEMO_BODY,
		summary: "Creates a comment: an independent memo with a COMMENT relation to the memo."
	},
	{
		operation: "ListMemoReactions",
		method: "GET",
		path: "/api/v1/memos/{memo}/reactions",
		action: memosActions.listMemoReactions,
		access: "signed-in",
		summary: "The reactions of a memo, oldest first."
	},
	{
		operation: "UpsertMemoReaction",
		method: "POST",
		path: "/api/v1/memos/{memo}/reactions",
		action: memosActions.upsertMemoReaction,
		access: "signed-in",
		body: "*",
		idempotent: true,
		summary: "Sets the caller's reaction to a memo (one per user and memo)."
	},
	{
		operation: "DeleteMemoReaction",
		method: "DELETE",
		path: "/api/v1/memos/{memo}/reactions/{reaction}",
		action: memosActions.deleteMemoReaction,
		access: "signed-in",
		empty: true,
		summary: "Removes a reaction; its creator or an admin."
	},
	{
		operation: "ListMemoRelations",
		method: "GET",
		path: "/api/v1/memos/{memo}/relations",
		action: memosActions.listMemoRelations,
		access: "signed-in",
		summary: "Relations of a memo in both directions, where the other memo is readable."
	},
	{
		operation: "SetMemoRelations",
		method: "PATCH",
		path: "/api/v1/memos/{memo}/relations",
		action: memosActions.setMemoRelations,
		access: "signed-in",
		body: "*",
		empty: true,
		idempotent: true,
		summary: "Replaces the memo's outgoing REFERENCE relations."
	},
	{
		operation: "ListMemoShares",
		method: "GET",
		path: "/api/v1/memos/{memo}/shares",
		action: memosActions.listMemoShares,
		access: "signed-in",
		summary: "Every share link of a memo, newest first."
	},
	{
		operation: "CreateMemoShare",
		method: "POST",
		path: "/api/v1/memos/{memo}/shares",
		action: memosActions.createMemoShare,
		access: "signed-in",
		body: "memoShare",
		summary: "Creates a share link, optionally expiring."
	},
	{
		operation: "DeleteMemoShare",
		method: "DELETE",
		path: "/api/v1/memos/{memo}/shares/{share}",
		action: memosActions.deleteMemoShare,
		access: "signed-in",
		empty: true,
		summary: "Revokes a share link."
	},
	{
		operation: "GetSharedMemo",
		method: "GET",
		path: "/api/v1/shares/{shareToken}/memo",
		action: memosActions.getSharedMemo,
		access: "anyone",
		ignoresAccessToken: true,
		summary: "The memo a live share token grants, without authentication."
	}
];
