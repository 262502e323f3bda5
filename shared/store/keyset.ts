import type { Filter, Sort } from "./document-store.js";

/**
 * Keyset pagination: a page token holds the sort-key values of the last memo served, and
 * the next page starts strictly after it in the sort order. Unlike an offset, this neither
 * repeats nor skips memos when others are inserted between pages, and MongoDB can seek to
 * the position in the sort index. The sort must end in a unique key (`seq`).
 */

export type Position = Record<string, string | number | boolean>;

export function positionOf(doc: Record<string, unknown>, sort: Sort): Position {
	const position: Position = {};
	for (const key of Object.keys(sort)) position[key] = doc[key] as string | number | boolean;
	return position;
}

/** A checker for positions of `sort`, whose keys must hold the JS types given (a token may be forged). */
export function positionGuard(sort: Sort, types: Record<string, "string" | "number" | "boolean">) {
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
 * and this one beyond. Booleans are spelled as equalities because NeDB does not order them
 * in range operators (false sorts before true).
 */
export function afterPosition(sort: Sort, position: Position): Filter {
	const branches: Filter[] = [];
	const equal: Filter = {};
	for (const [key, direction] of Object.entries(sort)) {
		const value = position[key];
		if (typeof value === "boolean") {
			const beyond = direction === 1 ? !value : value;
			if (beyond) branches.push({ ...equal, [key]: !value });
		} else {
			branches.push({ ...equal, [key]: { [direction === 1 ? "$gt" : "$lt"]: value } });
		}
		equal[key] = value;
	}
	return branches.length === 1 ? branches[0] : { $or: branches };
}
