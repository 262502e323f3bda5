import type { Doc, Filter, MergedFindOptions, Sort } from "./document-store.js";

/**
 * How both adapters order sort-key values, for the orders computed outside a store (keyset
 * positions, merges of branch reads). Strings in code point order, as MongoDB (binary
 * comparison) and SQLite (BINARY collation of UTF-8) order them; JavaScript's `<` compares
 * UTF-16 units, which differs past U+D7FF.
 */
function compareStrings(a: string, b: string): number {
	const length = Math.min(a.length, b.length);
	for (let i = 0; i < length; i++) {
		const x = a.codePointAt(i) as number;
		const y = b.codePointAt(i) as number;
		if (x !== y) return x < y ? -1 : 1;
		if (x > 0xffff) i++;
	}
	return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

export function compareValues(a: unknown, b: unknown): number {
	if (typeof a === "string" && typeof b === "string") return compareStrings(a, b);
	if ((typeof a === "number" && typeof b === "number") || (typeof a === "boolean" && typeof b === "boolean")) return a === b ? 0 : a < b ? -1 : 1;
	throw new TypeError(`sort keys of different types cannot be compared: ${typeof a} and ${typeof b}`);
}

/** Orders documents as the store orders them under `sort`. */
export function sortComparator(sort: Sort): (a: Record<string, unknown>, b: Record<string, unknown>) => number {
	const keys = Object.entries(sort);
	return (a, b) => {
		for (const [key, direction] of keys) {
			const order = compareValues(a[key], b[key]);
			if (order !== 0) return order * direction;
		}
		return 0;
	};
}

/** Merges sorted runs into one sorted list without duplicates (by `_id`), keeping at most `limit`. */
export function mergeSorted<T extends Doc>(runs: readonly (readonly T[])[], sort: Sort, limit: number): T[] {
	return runs.length === 1 ? runs[0].slice(0, limit) : sortedUnique(runs.flat(), sort, limit);
}

/** `docs` in `sort` order without duplicates (by `_id`), at most `limit`. */
export function sortedUnique<T extends Doc>(docs: T[], sort: Sort, limit: number): T[] {
	const seen = new Set<string>();
	const merged: T[] = [];
	for (const doc of docs.sort(sortComparator(sort))) {
		if (seen.has(doc._id)) continue;
		seen.add(doc._id);
		merged.push(doc);
		if (merged.length === limit) break;
	}
	return merged;
}

/** Collection.findMerged as separate reads of the branches, merged in memory (for a store without a merge of its own). */
export async function findMergedByBranch<T extends Doc>(
	find: (filter: Filter, options: MergedFindOptions) => Promise<T[]>,
	branches: readonly Filter[],
	options: MergedFindOptions
): Promise<T[]> {
	const runs = await Promise.all(branches.map(branch => find(branch, { sort: options.sort, limit: options.limit })));
	return mergeSorted(runs, options.sort, options.limit);
}
