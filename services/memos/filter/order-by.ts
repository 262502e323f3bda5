import { invalidArgument } from "../../../shared/errors.js";
import type { Sort } from "../../../shared/store/document-store.js";

/**
 * `orderBy` of contract 6.4: `term ("," term)*`, `term := FIELD [asc|desc]` (direction in any
 * case, default desc). The store sort always ends with `seq`, the creation sequence, in the
 * direction of the last time key given (descending when none), so ties are ordered the same
 * way on every page.
 */

type Direction = 1 | -1;

interface OrderField {
	key: string;
	isTime: boolean;
}

const MEMO_FIELDS: Record<string, OrderField> = {
	pinned: { key: "pinned", isTime: false },
	create_time: { key: "createTime", isTime: true },
	update_time: { key: "updateTime", isTime: true },
	name: { key: "_id", isTime: false }
};
const COMMENT_FIELDS: Record<string, OrderField> = {
	create_time: MEMO_FIELDS.create_time,
	update_time: MEMO_FIELDS.update_time,
	name: MEMO_FIELDS.name
};

/** ListMemos: `pinned`, `create_time`, `update_time`, `name`; default `create_time desc`. */
export function parseMemoOrderBy(raw: string | undefined): Sort {
	return parseOrderBy(raw, MEMO_FIELDS, "create_time desc");
}

/** ListMemoComments: `create_time`, `update_time`, `name`; default `create_time asc`. */
export function parseCommentOrderBy(raw: string | undefined): Sort {
	return parseOrderBy(raw, COMMENT_FIELDS, "create_time asc");
}

function parseOrderBy(raw: string | undefined, fields: Record<string, OrderField>, fallback: string): Sort {
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
	sort.seq = tieBreak;
	return sort;
}
