import type { RouteSpec } from "../route-spec.js";

/**
 * MemoService (contract 7). Routes under `/api/v1/memos/-/…` go before the `{memo}` ones,
 * which would otherwise take `-` for a memo id.
 */
export const memosRoutes: RouteSpec[] = [
	{
		operation: "ListMemos",
		method: "GET",
		path: "/api/v1/memos",
		action: "memos.listMemos",
		access: "public-instance",
		summary: "Memos the caller can read, filtered, ordered and paginated."
	},
	{
		operation: "CreateMemo",
		method: "POST",
		path: "/api/v1/memos",
		action: "memos.createMemo",
		access: "signed-in",
		body: "memo",
		summary: "Creates a memo; the caller becomes its creator."
	},
	{
		operation: "GetMemo",
		method: "GET",
		path: "/api/v1/memos/{memo}",
		action: "memos.getMemo",
		access: "public-instance",
		summary: "One memo, if the caller can read it."
	},
	{
		operation: "UpdateMemo",
		method: "PATCH",
		path: "/api/v1/memos/{memo}",
		action: "memos.updateMemo",
		access: "signed-in",
		// Not `memo`: the path parameter of that name would replace it (path parameters win).
		body: "patch",
		summary: "Changes the fields named by updateMask."
	},
	{
		operation: "DeleteMemo",
		method: "DELETE",
		path: "/api/v1/memos/{memo}",
		action: "memos.deleteMemo",
		access: "signed-in",
		empty: true,
		summary: "Soft-deletes a memo, or purges it with force."
	}
];
