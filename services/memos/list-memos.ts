import type { Caller } from "../../shared/caller.js";
import { listPage, type Page } from "../../shared/paging/list-page.js";
import { compileMemoFilter, type CheckedMemoFilter } from "./filter/memo-filter.js";
import { parseMemoOrderBy } from "./filter/order-by.js";
import type { ListMemosQuery } from "./list-params.js";
import { candidateBranches, candidateTags } from "./list-query.js";
import type { MemoDoc } from "./memo-doc.js";
import { memoResponses } from "./memo-responses.js";
import type { MemosDeps } from "./memos-deps.js";
import { groupedRead, pinnedSplit } from "./memos-store.js";

const LIST_MEMOS = "ListMemos";

/** The JS type of each sortable memo field, to check positions read from page tokens. */
const SORT_KEY_TYPES = {
	pinned: "boolean",
	createTime: "number",
	updateTime: "number",
	_id: "string",
	seq: "number"
} as const;

/** The ListMemos response (contract 7.2). */
export interface ListMemosResponse {
	memos: Record<string, unknown>[];
	nextPageToken: string;
}

/** ListMemos (contract 7.2): the page of `listMemos`, each memo with everything a response carries. */
export async function listMemosResponse(deps: MemosDeps, caller: Caller | null, query: ListMemosQuery, filter: CheckedMemoFilter, now: number): Promise<ListMemosResponse> {
	const page = await listMemos(deps, caller, query, filter, now);
	return { memos: await memoResponses(deps, caller, page.items, { withDeleteTime: query.showDeleted }), nextPageToken: page.nextPageToken };
}

/** ListMemos' page (contract 7.2): candidates as index-served branches, `filter` (query.filter, checked), order; at most pageSize + 1 entries read per branch. */
export async function listMemos(deps: MemosDeps, caller: Caller | null, query: ListMemosQuery, filter: CheckedMemoFilter, now: number): Promise<Page<MemoDoc>> {
	const sort = parseMemoOrderBy(query.orderBy);
	// The token is bound to everything that selects or orders the list, the caller included.
	const bound = {
		filter: query.filter,
		orderBy: query.orderBy,
		state: query.state,
		showDeleted: query.showDeleted,
		caller: caller?.id ?? null
	};
	const branches = candidateBranches(caller, query.state, query.showDeleted, [...(await deps.peers.spacesOf(caller)).keys()]);
	const creatorIds = branches.length > 0 && filter.usernames.length > 0 ? await deps.peers.userIds(filter.usernames) : new Map<string, string>();
	const tags = filter.readsTags ? await candidateTags(deps.store.memos, branches) : undefined;
	const groupedBy = groupedRead(sort);
	return listPage(deps.store.memos, {
		operation: LIST_MEMOS,
		query: bound,
		pageSize: query.pageSize,
		pageToken: query.pageToken,
		sort,
		keyTypes: SORT_KEY_TYPES,
		branches,
		where: compileMemoFilter(filter, { now, creatorIds, tags }),
		...(pinnedSplit(sort) ? { splitBy: "pinned" } : {}),
		...(groupedBy === undefined ? {} : { groupedBy })
	});
}
