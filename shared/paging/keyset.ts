import type { Filter, Sort } from "../store/document-store.js";
import { compareValues } from "../store/sort-order.js";

/**
 * Keyset pagination: a page token holds the sort-key values of the last item served, and
 * the next page starts strictly after it in the sort order. Unlike an offset, this neither
 * repeats nor skips items when others are inserted between pages, and an index on the sort
 * keys lets the store seek to the position. The sort must end in a unique key.
 */

export type Position = Record<string, string | number | boolean>;

/** The JS type each sort key of a list holds, so that forged positions are refused. */
export type KeyTypes = Record<string, "string" | "number" | "boolean">;

export function positionOf(doc: Record<string, unknown>, sort: Sort): Position {
	const position: Position = {};
	for (const key of Object.keys(sort)) position[key] = doc[key] as string | number | boolean;
	return position;
}

/** A checker for positions of `sort`, whose keys must hold the JS types given (a token may be forged). */
export function positionGuard(sort: Sort, types: KeyTypes) {
	return (value: unknown): value is Position => {
		if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
		const keys = Object.keys(sort);
		if (Object.keys(value).length !== keys.length) return false;
		return keys.every(key => {
			const v = (value as Record<string, unknown>)[key];
			return typeof v === types[key] && (typeof v !== "number" || Number.isFinite(v));
		});
	};
}

/**
 * Documents strictly after `position` in `sort` order: for some key, all earlier keys equal
 * and this one beyond. Booleans are spelled as equalities, the same in every store. `fixed`
 * holds the keys a list branch fixes by equality: they decide at once whether the whole
 * branch is after the position (`{}`, no condition) or none of it is (null). The first key
 * left open, when not a boolean, has its non-strict bound stand beside the `$or` as well, so
 * a store reads only the index range from the position on instead of testing every entry.
 */
export function afterPosition(sort: Sort, position: Position, fixed: Record<string, unknown> = {}): Filter | null {
	const branches: Filter[] = [];
	const equal: Filter = {};
	let lead: [string, 1 | -1] | undefined;
	for (const [key, direction] of Object.entries(sort)) {
		const value = position[key];
		if (Object.hasOwn(fixed, key)) {
			const order = compareValues(fixed[key], value) * direction;
			if (order > 0) branches.push({ ...equal });
			if (order !== 0) break;
			continue;
		}
		lead ??= [key, direction];
		if (typeof value === "boolean") {
			const beyond = direction === 1 ? !value : value;
			if (beyond) branches.push({ ...equal, [key]: !value });
		} else {
			branches.push({ ...equal, [key]: { [direction === 1 ? "$gt" : "$lt"]: value } });
		}
		equal[key] = value;
	}
	if (branches.length === 0) return null;
	if (branches.some(branch => Object.keys(branch).length === 0)) return {};
	if (branches.length === 1) return branches[0];
	if (lead === undefined || typeof position[lead[0]] === "boolean") return { $or: branches };
	const [first, direction] = lead;
	return { $and: [{ [first]: { [direction === 1 ? "$gte" : "$lte"]: position[first] } }, { $or: branches }] };
}

/** The sort keys `branch` fixes by equality to a value of the key's type (their position is decided by the branch). */
export function fixedKeys(branch: Filter, sort: Sort, types: KeyTypes): Record<string, unknown> {
	return Object.fromEntries(Object.keys(sort).flatMap(key => (typeof branch[key] === types[key] ? [[key, branch[key]]] : [])));
}
