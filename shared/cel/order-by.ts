import { invalidArgument } from "../errors.js";
import type { Sort } from "../store/document-store.js";

/**
 * `orderBy` of contract 6.4: `term ("," term)*`, `term := FIELD [asc|desc]` (direction in any
 * case, default desc). The store sort ends with `seq`, the creation sequence, in the
 * direction of the last time key given (descending when none), so ties are ordered the same
 * way on every page; or, when `name` (`_id`, unique) is given, with `_id`.
 */

type Direction = 1 | -1;

export interface OrderField {
	/** The stored field it sorts on. */
	key: string;
	isTime: boolean;
}

/** Parses `raw` (the `fallback` when empty) over the fields one list operation accepts. */
export function parseOrderBy(raw: string | undefined, fields: Record<string, OrderField>, fallback: string): Sort {
	const text = raw === undefined || raw.trim() === "" ? fallback : raw;
	const sort: Sort = {};
	let tieBreak: Direction = -1;
	for (const term of text.split(",")) {
		const words = term.trim().split(/\s+/).filter(word => word !== "");
		if (words.length === 0) throw invalidArgument(`invalid orderBy: empty term in ${JSON.stringify(text)}`);
		if (words.length > 2) throw invalidArgument(`invalid orderBy: ${JSON.stringify(term.trim())} is not "field [asc|desc]"`);
		const [name, written = "desc"] = words;
		const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
		if (field === undefined) throw invalidArgument(`invalid orderBy: unknown field ${JSON.stringify(name)}; use ${Object.keys(fields).join(", ")}`);
		const direction = written.toLowerCase();
		if (direction !== "asc" && direction !== "desc") throw invalidArgument(`invalid orderBy: direction must be asc or desc, not ${JSON.stringify(written)}`);
		if (field.key in sort) throw invalidArgument(`invalid orderBy: ${name} is given twice`);
		sort[field.key] = direction === "asc" ? 1 : -1;
		if (field.isTime) tieBreak = sort[field.key];
	}
	// `_id` is unique: keys after it never decide, and an index ending in it serves the order.
	if ("_id" in sort) return Object.fromEntries(Object.entries(sort).slice(0, Object.keys(sort).indexOf("_id") + 1)) as Sort;
	sort.seq = tieBreak;
	return sort;
}
