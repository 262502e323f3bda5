import type { Collection, Doc, Filter, Sort } from "../store/document-store.js";
import { afterPosition, fixedKeys, positionGuard, positionOf, sortComparator, type KeyTypes, type Position } from "./keyset.js";
import { decodePageToken, encodePageToken } from "./page-token.js";

export { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, normalizePageSize, pageSizeParam } from "./page-token.js";
export type { KeyTypes, Position } from "./keyset.js";

/**
 * One page of any list (contract 1.7). The list's selection is given as branches, each an
 * equality-prefixed filter that one index serves with `sort` after the prefix (a caller's
 * own memos, the PUBLIC ones, each space's…). Every branch is read in index order from the
 * token's position with `limit: pageSize + 1`, and the branches are merged in memory, so a
 * page costs at most pageSize + 1 index entries per branch however large the collection,
 * where one `$or` with a sort would make the store sort every match.
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

/** Merges sorted runs into one sorted list without duplicates (by `_id`), keeping at most `limit`. */
export function mergeSorted<T extends Doc>(runs: readonly (readonly T[])[], sort: Sort, limit: number): T[] {
	if (runs.length === 1) return runs[0].slice(0, limit);
	const seen = new Set<string>();
	const merged: T[] = [];
	for (const doc of runs.flat().sort(sortComparator(sort))) {
		if (seen.has(doc._id)) continue;
		seen.add(doc._id);
		merged.push(doc);
		if (merged.length === limit) break;
	}
	return merged;
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

/** Reads one page of `collection` as `spec` describes. */
export async function listPage<T extends Doc>(collection: Collection<T>, spec: ListPageSpec): Promise<Page<T>> {
	const position = pagePosition(spec);
	if (spec.branches.length === 0) return { items: [], nextPageToken: "" };
	const where = spec.where !== undefined && Object.keys(spec.where).length > 0 ? [spec.where] : [];
	const limit = spec.pageSize + 1;
	const runs = await Promise.all(
		splitOnBooleans(spec).map(branch => {
			const after = position === null ? {} : afterPosition(spec.sort, position, fixedKeys(branch, spec.sort, spec.keyTypes));
			if (after === null) return [];
			const shared = Object.keys(after).length === 0 ? where : [...where, after];
			const filter = shared.length === 0 ? branch : { $and: [branch, ...shared] };
			return collection.find(filter, { sort: spec.sort, limit });
		})
	);
	return pageOf(mergeSorted(runs, spec.sort, limit), spec);
}
