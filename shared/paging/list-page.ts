import type { Collection, Doc, Filter, Sort } from "../store/document-store.js";
import { mergeSorted, sortedUnique } from "../store/sort-order.js";
import { afterPosition, fixedKeys, positionGuard, positionOf, type KeyTypes, type Position } from "./keyset.js";
import { decodePageToken, encodePageToken } from "./page-token.js";

export { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, normalizePageSize, pageSizeParam } from "./page-token.js";
export type { KeyTypes, Position } from "./keyset.js";

/**
 * One page of any list (contract 1.7). The list's selection is given as branches, each an
 * equality-prefixed filter that one index serves with `sort` after the prefix (a caller's
 * own memos, the PUBLIC ones, each space's…). Every branch is read in index order from the
 * token's position with `limit: pageSize + 1`, and the branches are merged (by the store, in
 * one read that reads whole only the documents of the page: Collection.findMerged), so a page
 * costs at most pageSize + 1 index entries per branch however large the collection, where one
 * `$or` with a sort would make the store sort every match.
 */
export interface ListPageSpec {
	/** The operation a token belongs to; a token of another operation is INVALID_ARGUMENT. */
	operation: string;
	/** Everything that selects or orders the list (not pageSize or pageToken): a token is bound to it. */
	query: Record<string, unknown>;
	pageSize: number;
	pageToken: string | undefined;
	/** The order; its last key must be unique so positions are total. */
	sort: Sort;
	keyTypes: KeyTypes;
	/** The selection as index-served branches; none selects nothing. */
	branches: readonly Filter[];
	/** Conditions every item must meet besides its branch (a compiled filter), tested after the index prefix. */
	where?: Filter;
	/**
	 * A boolean field (not a sort key) to split every branch on as well, so that the indexes
	 * that begin the order with it serve this order (memos-store.ts: compound memo orders).
	 */
	splitBy?: string;
	/**
	 * For an order whose last key is unique and decides only between items equal on every key
	 * before it (a group), another order of the same groups that an index gives, with another
	 * tie-breaker: a branch is read in it, and the groups a page can end inside are read again
	 * whole up to the page's length, in the last key's order (memos-store.ts: two time keys then
	 * `name`). A page then costs at most three reads of pageSize + 1 entries per branch.
	 */
	groupedBy?: Sort;
}

export interface Page<T> {
	items: T[];
	nextPageToken: string;
}

/** The position a token names for this list (null on the first page); a bad token is INVALID_ARGUMENT. */
export function pagePosition(spec: Pick<ListPageSpec, "operation" | "query" | "pageToken" | "sort" | "keyTypes">): Position | null {
	return decodePageToken(spec.pageToken, spec.operation, spec.query, positionGuard(spec.sort, spec.keyTypes));
}

/**
 * The page of `candidates` (sorted, possibly one longer than the page to show a next page
 * exists): the first pageSize items and the token for the position after the last one.
 */
export function pageOf<T extends object>(candidates: readonly T[], spec: Pick<ListPageSpec, "operation" | "query" | "pageSize" | "sort">): Page<T> {
	const items = candidates.slice(0, spec.pageSize);
	const last = items.at(-1);
	const nextPageToken =
		candidates.length > spec.pageSize && last !== undefined ? encodePageToken(spec.operation, spec.query, positionOf(last as Record<string, unknown>, spec.sort)) : "";
	return { items, nextPageToken };
}

/**
 * The branches with each boolean sort key (`pinned`), and `splitBy`, made an equality in each:
 * the key then drops out of the order an index must give, wherever it stands in it, and one
 * index serves either direction of it with the rest of the order.
 */
function splitOnBooleans(spec: ListPageSpec): Filter[] {
	const keys = Object.keys(spec.sort).filter(key => spec.keyTypes[key] === "boolean");
	if (spec.splitBy !== undefined && !keys.includes(spec.splitBy)) keys.push(spec.splitBy);
	let branches = [...spec.branches];
	for (const key of keys) branches = branches.flatMap(branch => (typeof branch[key] === "boolean" ? [branch] : [{ ...branch, [key]: true }, { ...branch, [key]: false }]));
	return branches;
}

/**
 * Reads one page of `collection` as `spec` describes: one branch by a find, several by one
 * merged read (Collection.findMerged); a grouped order by the reads of each branch, merged here.
 */
export async function listPage<T extends Doc>(collection: Collection<T>, spec: ListPageSpec): Promise<Page<T>> {
	const position = pagePosition(spec);
	if (spec.branches.length === 0) return { items: [], nextPageToken: "" };
	const where = spec.where !== undefined && Object.keys(spec.where).length > 0 ? [spec.where] : [];
	const limit = spec.pageSize + 1;
	const filterOf = (branch: Filter, conditions: Filter[]) => {
		const shared = [...where, ...conditions.filter(condition => Object.keys(condition).length > 0)];
		return shared.length === 0 ? branch : { $and: [branch, ...shared] };
	};
	const branches = splitOnBooleans(spec);
	const { groupedBy } = spec;
	if (groupedBy !== undefined) {
		const runs = await Promise.all(
			branches.map(branch => readGrouped(spec, groupedBy, position, (conditions, sort) => collection.find(filterOf(branch, conditions), { sort, limit }), branch))
		);
		return pageOf(mergeSorted(runs, spec.sort, limit), spec);
	}
	const filters = branches.flatMap(branch => {
		const after = position === null ? {} : afterPosition(spec.sort, position, fixedKeys(branch, spec.sort, spec.keyTypes));
		return after === null ? [] : [filterOf(branch, [after])];
	});
	const read = { sort: spec.sort, limit };
	if (filters.length === 0) return pageOf([], spec);
	return pageOf(filters.length === 1 ? await collection.find(filters[0] as Filter, read) : await collection.findMerged(filters, read), spec);
}

/**
 * One branch of a grouped order (`groupedBy`), sorted by `spec.sort`: the rest of the
 * position's group in the last key's order, the groups after it in `readOrder`, and, when that
 * read fills the page, the whole of its last group (as far as a page goes) in the last key's
 * order, since `readOrder` may have cut that group at other members than the page order would.
 */
async function readGrouped<T extends Doc>(
	spec: ListPageSpec,
	readOrder: Sort,
	position: Position | null,
	read: (conditions: Filter[], sort: Sort) => Promise<T[]>,
	branch: Filter
): Promise<T[]> {
	const keys = Object.keys(spec.sort);
	const last = keys[keys.length - 1];
	const groupKeys = keys.slice(0, -1);
	const byLast: Sort = { [last]: spec.sort[last] };
	const groupOf = (doc: Record<string, unknown>): Filter => Object.fromEntries(groupKeys.map(key => [key, doc[key]]));
	const groupSort: Sort = Object.fromEntries(groupKeys.map(key => [key, spec.sort[key]]));
	const fixed = fixedKeys(branch, spec.sort, spec.keyTypes);
	const reads: Promise<T[]>[] = [];
	let after: Filter | null = {};
	if (position !== null) {
		const inBranch = Object.entries(fixed).every(([key, value]) => position[key] === value);
		if (inBranch) reads.push(read([groupOf(position), { [last]: { [spec.sort[last] === 1 ? "$gt" : "$lt"]: position[last] } }], byLast));
		after = afterPosition(groupSort, position, fixed);
	}
	if (after !== null) {
		const run = await read([after], readOrder);
		reads.push(Promise.resolve(run));
		const end = run.at(-1);
		if (run.length === spec.pageSize + 1 && end !== undefined) reads.push(read([groupOf(end)], byLast));
	}
	return sortedUnique((await Promise.all(reads)).flat(), spec.sort, spec.pageSize + 1);
}
