import type { Filter, Sort } from "../document-store.js";
import { DATE_KEY, encodeJson, isPlainObject } from "./json-value.js";
import { checkRegex } from "./regex-guard.js";

/**
 * Translates the port's filters (Mongo query language, MongoDB's meaning) into one SQL
 * condition with numbered parameters, over a table whose rows are `_id` and `doc` (the
 * document as JSON text).
 *
 * A field is read from its column where the table has one (the field paths indexes name,
 * sqlite/field-columns.ts), else with `json_extract(doc, '$.path')`, the column's value, so
 * that equality, `IS NULL` and ranges on it can be served by an index. MongoDB's array
 * semantics (a condition on an array field holds when it holds for an element; a dotted path
 * continues into the elements of an array) need `json_each`, which no index serves; the
 * translation adds them only for paths under which the collection has ever stored an array
 * (`arrays`, kept by the collection), so scalar fields stay index-served.
 *
 * Every condition is a SQL boolean; negations (`$ne`, `$nin`, `$not`, `$nor`, `$exists:
 * false`) read NULL (a missing field) as false before negating, so they match documents
 * lacking the field, as in MongoDB. Not emulated: ordering between values of different
 * types (a range on a number matches numbers only, on a string strings only) and sorting on
 * array fields.
 */

export type SqlParam = string | number | null;

/** The SQL function that runs a vetted regular expression: `mq_regex('<flags>/<source>', value)`. */
export const REGEX_FUNCTION = "mq_regex";

/** A JSON path, as a path literal or as SQL that computes one (inside array elements). */
type JsonPath = { literal: string } | { sql: string };

/** Where a (sub-)document lives: its JSON path, its field path without array levels, and whether it may be an array. */
interface Place {
	path: JsonPath;
	norm: string;
	maybeArray: boolean;
}

/** One place a field's value may come from, with what reaching it takes (joins over array elements). */
interface Source {
	joins: string[];
	guards: string[];
	value: string;
	type: string;
	/** Null for the `_id` column. */
	path: JsonPath | null;
	norm: string;
	/** An array element reached by expansion: its null is a JSON null, never a missing field. */
	element: boolean;
}

type Test = (source: Source) => string;

const ROOT_PLACE: Place = { path: { literal: "$" }, norm: "", maybeArray: false };
const LOGICAL = new Set(["$and", "$or", "$nor"]);
const COMPARISONS: Record<string, string> = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" };
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function sqlString(text: string): string {
	return `'${text.replaceAll("'", "''")}'`;
}

function segment(name: string): string {
	if (IDENTIFIER.test(name)) return `.${name}`;
	if (name.includes('"') || name === "") throw new Error(`field name not supported by the document store: ${JSON.stringify(name)}`);
	return `."${name}"`;
}

/** The JSON path literal of a dotted field (`a.b` → `$.a.b`). */
export function jsonPath(field: string): string {
	return `$${field.split(".").map(segment).join("")}`;
}

function pathSql(path: JsonPath): string {
	return "literal" in path ? sqlString(path.literal) : path.sql;
}

function childPath(path: JsonPath, suffix: string): JsonPath {
	return "literal" in path ? { literal: path.literal + suffix } : { sql: `${path.sql} || ${sqlString(suffix)}` };
}

// Constants are folded only where nothing else is dropped: every numbered parameter bound must stay in the SQL.
function and(parts: string[]): string {
	const kept = parts.filter(part => part !== "1");
	if (kept.length === 0) return "1";
	if (kept.every(part => part === "0")) return "0";
	return kept.length === 1 ? kept[0] : `(${kept.join(" AND ")})`;
}

function or(parts: string[]): string {
	const kept = parts.filter(part => part !== "0");
	if (kept.length === 0) return "0";
	if (kept.every(part => part === "1")) return "1";
	return kept.length === 1 ? kept[0] : `(${kept.join(" OR ")})`;
}

/** NULL (unknown: a missing field) counts as false before it is negated. */
function not(part: string): string {
	if (part === "1") return "0";
	if (part === "0") return "1";
	return `(${part}) IS NOT 1`;
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
	return isPlainObject(value) && Object.keys(value).some(key => key.startsWith("$"));
}

function isElementCondition(value: unknown): value is Record<string, unknown> {
	return isOperatorObject(value) && !Object.keys(value).some(key => LOGICAL.has(key));
}

function queries(operator: string, value: unknown): Filter[] {
	if (!Array.isArray(value) || !value.every(isPlainObject)) throw new Error(`${operator} needs an array of queries`);
	return value;
}

export class FilterTranslator {
	readonly params: SqlParam[] = [];
	private aliases = 0;

	/**
	 * `arrays`: the field paths (array levels left out) that may hold arrays; `root`: the SQL of
	 * the document's JSON text; parameters are numbered from `firstParam`; `columns`: the JSON
	 * paths that have a column of the same value, with its SQL name; `jsonColumns`: those that
	 * have a column of the value's JSON text (sqlite/field-columns.ts), read in place of the document.
	 */
	constructor(
		private readonly arrays: ReadonlySet<string>,
		private readonly root = "doc",
		private readonly firstParam = 1,
		private readonly columns: ReadonlyMap<string, string> = new Map(),
		private readonly jsonColumns: ReadonlyMap<string, string> = new Map()
	) {}

	where(filter: Filter, place: Place = ROOT_PLACE): string {
		if (!isPlainObject(filter)) throw new Error("a query must be an object");
		const parts: string[] = [];
		for (const [key, value] of Object.entries(filter)) {
			if (key === "$and") parts.push(and(queries(key, value).map(query => this.where(query, place))));
			else if (key === "$or") parts.push(or(queries(key, value).map(query => this.where(query, place))));
			else if (key === "$nor") parts.push(not(or(queries(key, value).map(query => this.where(query, place)))));
			else if (key.startsWith("$")) throw new Error(`unsupported query operator ${key}`);
			else parts.push(this.fieldCondition(place, key, value));
		}
		return and(parts);
	}

	/**
	 * The condition on `field`, and where a top-level field has a JSON column and the condition
	 * wants it to be (or hold) one of some strings, first a search of the column's text for their
	 * JSON texts: a stored string equal to one of them was written by JSON.stringify, which spells
	 * a string one way, and the column holds that text as written, so a row lacking every one
	 * cannot match. The search rules out most rows of a tag filter before json_each runs. (A
	 * dotted path's column misses the values reached through an array on the way.)
	 */
	private fieldCondition(place: Place, field: string, value: unknown): string {
		const condition = this.condition(fieldSources(this, place, field), value);
		const json = place === ROOT_PLACE && !field.includes(".") ? this.jsonColumns.get(jsonPath(field)) : undefined;
		const sought = stringsSought(value);
		if (json === undefined || sought.length === 0 || condition === "0" || condition === "1") return condition;
		return and([or(sought.map(text => `instr(${json}, ${this.param(JSON.stringify(text))}) > 0`)), condition]);
	}

	/** A condition on each element of the array JSON bound as `root` (`$pull`): `element` is the json_each alias. */
	elementCondition(condition: unknown, element: string): string {
		const source: Source = { joins: [], guards: [], value: `${element}.value`, type: `${element}.type`, path: { sql: `${element}.fullkey` }, norm: "", element: true };
		if (isPlainObject(condition) && !isElementCondition(condition)) return this.where(condition, { path: { sql: `${element}.fullkey` }, norm: "", maybeArray: false });
		return this.condition(() => [source], condition);
	}

	/**
	 * The ORDER BY of `sort`, without the keys `filter` fixes to one value: they order nothing,
	 * and SQLite would sort in a temporary B-tree rather than see that an index keeps the order
	 * when such a key is named (empty when no key is left).
	 */
	orderBy(sort: Sort, filter: Filter = {}): string {
		const fixed = this.fixedFields(filter);
		return Object.entries(sort)
			.filter(([field]) => !fixed.has(field))
			.map(([field, direction]) => `${this.fieldValue(field)} ${direction === -1 ? "DESC" : "ASC"}`)
			.join(", ");
	}

	/** The SQL of a top-level field's value as sorts read it: the `_id` column, the field's column, or the document's value. */
	fieldValue(field: string): string {
		return field === "_id" ? "_id" : this.valueAt({ literal: jsonPath(field) });
	}

	/** Top-level fields that hold no array and that `filter` sets equal to one scalar. */
	private fixedFields(filter: Filter, into = new Set<string>()): Set<string> {
		for (const [key, value] of Object.entries(filter)) {
			if (key === "$and" && Array.isArray(value)) {
				for (const query of value) if (isPlainObject(query)) this.fixedFields(query, into);
				continue;
			}
			if (key.startsWith("$") || key.includes(".") || this.arrays.has(key)) continue;
			const single = isPlainObject(value) && Object.keys(value).length === 1;
			const operand = single && "$eq" in value ? value.$eq : single && Array.isArray(value.$in) && value.$in.length === 1 ? value.$in[0] : value;
			if (operand === null || ["string", "number", "boolean"].includes(typeof operand)) into.add(key);
		}
		return into;
	}

	param(value: SqlParam): string {
		this.params.push(value);
		return `?${this.firstParam + this.params.length - 1}`;
	}

	alias(): string {
		this.aliases += 1;
		return `j${this.aliases}`;
	}

	/** The sources of a path below `place`; `expand` adds the elements of a final array. */
	walk(path: JsonPath, norm: string, maybeArray: boolean, segments: string[], reach: Pick<Source, "joins" | "guards">, expand: boolean, out: Source[]): void {
		const sql = pathSql(path);
		if (segments.length === 0) {
			out.push({ ...reach, value: this.valueAt(path), type: this.typeAt(path), path, norm, element: false });
			if (expand && maybeArray) {
				const j = this.alias();
				out.push({
					joins: [...reach.joins, this.eachElement(path, j)],
					guards: [...reach.guards, `${this.typeAt(path)} = 'array'`],
					value: `${j}.value`,
					type: `${j}.type`,
					path: elementPath(sql, j),
					norm,
					element: true
				});
			}
			return;
		}
		const [name, ...rest] = segments;
		const childNorm = norm === "" ? name : `${norm}.${name}`;
		// On an array, a key lookup finds nothing: the direct path must not read as a missing field there.
		const direct = maybeArray ? { joins: reach.joins, guards: [...reach.guards, `${this.typeAt(path)} IS NOT 'array'`] } : reach;
		this.walk(childPath(path, segment(name)), childNorm, this.arrays.has(childNorm), rest, direct, expand, out);
		if (!maybeArray) return;
		if (/^\d+$/.test(name)) this.walk(childPath(path, `[${name}]`), norm, false, rest, reach, expand, out);
		const j = this.alias();
		const elements = {
			joins: [...reach.joins, this.eachElement(path, j)],
			guards: [...reach.guards, `${this.typeAt(path)} = 'array'`]
		};
		this.walk(elementPath(sql, j), norm, false, segments, elements, expand, out);
	}

	/**
	 * `json_each` over the value at `path`, as alias `j`: over its JSON column, or given the
	 * value's JSON text (`->`, answered from the document's parse that the conditions beside it
	 * make) rather than the document and a path, so that it parses only that value:
	 * `json_each(doc, path)` parsed the whole document again for every row a list tests (a tag
	 * filter: ~30 % less time per row).
	 */
	private eachElement(path: JsonPath, j: string): string {
		return `json_each(${this.jsonColumnAt(path) ?? `${this.root} -> (${pathSql(path)})`}) AS ${j}`;
	}

	/** The JSON type of the value at `path`, from its JSON column when it has one. */
	private typeAt(path: JsonPath): string {
		const json = this.jsonColumnAt(path);
		return json === undefined ? `json_type(${this.root}, ${pathSql(path)})` : `json_type(${json})`;
	}

	private jsonColumnAt(path: JsonPath): string | undefined {
		return "literal" in path ? this.jsonColumns.get(path.literal) : undefined;
	}

	/** The value at `path`: its column, or the expression the column holds (over the JSON column when there is one). */
	private valueAt(path: JsonPath): string {
		const column = "literal" in path ? this.columns.get(path.literal) : undefined;
		if (column !== undefined) return column;
		const json = this.jsonColumnAt(path);
		return json === undefined ? `json_extract(${this.root}, ${pathSql(path)})` : `json_extract(${json}, '$')`;
	}

	private condition(sources: (expand: boolean) => Source[], condition: unknown): string {
		if (!isOperatorObject(condition)) return anySource(sources(true), this.equality(condition));
		const parts: string[] = [];
		for (const [operator, operand] of Object.entries(condition)) {
			if (operator === "$options") continue;
			parts.push(this.operator(sources, operator, operand, condition));
		}
		return and(parts);
	}

	private operator(sources: (expand: boolean) => Source[], operator: string, operand: unknown, condition: Record<string, unknown>): string {
		switch (operator) {
			case "$eq":
				return anySource(sources(true), this.equality(operand));
			case "$ne":
				return not(anySource(sources(true), this.equality(operand)));
			case "$in":
				return anySource(sources(true), this.membership(operand));
			case "$nin":
				return not(anySource(sources(true), this.membership(operand)));
			case "$exists": {
				const exists = anySource(sources(false), source => `${source.type} IS NOT NULL`);
				return operand ? exists : not(exists);
			}
			case "$not":
				if (operand instanceof RegExp) return not(anySource(sources(true), this.regex(operand)));
				if (!isOperatorObject(operand)) throw new Error("$not needs an operator object or a RegExp");
				return not(this.condition(sources, operand));
			case "$gt":
			case "$gte":
			case "$lt":
			case "$lte":
				return anySource(sources(true), this.comparison(COMPARISONS[operator], operand));
			case "$regex": {
				const flags = typeof condition.$options === "string" ? condition.$options : "";
				const regex = operand instanceof RegExp ? operand : new RegExp(String(operand), flags);
				return anySource(sources(true), this.regex(regex));
			}
			case "$size": {
				if (typeof operand !== "number" || !Number.isInteger(operand) || operand < 0) throw new Error("$size needs a non-negative integer");
				const n = this.param(operand);
				return anySource(sources(false), source =>
					source.path === null ? "0" : `(${source.type} = 'array' AND json_array_length(${this.root}, ${pathSql(source.path)}) = ${n})`
				);
			}
			case "$elemMatch":
				return or(sources(false).map(source => this.elemMatch(source, operand)));
			default:
				throw new Error(`unsupported query operator ${operator}`);
		}
	}

	private elemMatch(source: Source, condition: unknown): string {
		if (!isPlainObject(condition)) throw new Error("$elemMatch needs a query or an operator object");
		if (source.path === null) return "0";
		const sql = pathSql(source.path);
		const k = this.alias();
		const path = elementPath(sql, k);
		const inner = isElementCondition(condition)
			? this.condition(() => [{ joins: [], guards: [], value: `${k}.value`, type: `${k}.type`, path, norm: source.norm, element: true }], condition)
			: this.where(condition, { path, norm: source.norm, maybeArray: false });
		const joins = [...source.joins, this.eachElement(source.path, k)];
		const conditions = [...source.guards, `${this.typeAt(source.path)} = 'array'`, inner];
		return `EXISTS (SELECT 1 FROM ${joins.join(", ")} WHERE ${conditions.join(" AND ")})`;
	}

	private equality(value: unknown): Test {
		if (value === null || value === undefined) return source => (source.element ? `${source.type} = 'null'` : `${source.value} IS NULL`);
		if (value instanceof RegExp) return this.regex(value);
		if (typeof value === "string") {
			const p = this.param(value);
			// A sub-document reads as its JSON text: a string that looks like one must be a string.
			return /^[[{]/.test(value) ? source => `(${source.value} = ${p} AND ${source.type} = 'text')` : source => `${source.value} = ${p}`;
		}
		if (typeof value === "number") {
			const p = this.param(value);
			return source => `(${source.value} = ${p} AND ${source.type} IN ('integer', 'real'))`;
		}
		if (typeof value === "boolean") return source => `(${source.value} = ${value ? 1 : 0} AND ${source.type} = '${value}')`;
		if (value instanceof Date) {
			const p = this.param(value.getTime());
			return source => `${this.dateValue(source)} = ${p}`;
		}
		const p = this.param(encodeJson(value));
		return source => `(${source.type} IN ('object', 'array') AND ${source.value} = ${p})`;
	}

	private membership(values: unknown): Test {
		if (!Array.isArray(values)) throw new Error("$in and $nin need an array");
		const strings = values.filter((value): value is string => typeof value === "string" && !/^[[{]/.test(value)).map(value => this.param(value));
		const numbers = values.filter((value): value is number => typeof value === "number").map(value => this.param(value));
		const others = values.filter(value => typeof value !== "number" && (typeof value !== "string" || /^[[{]/.test(value))).map(value => this.equality(value));
		return source => {
			const parts: string[] = [];
			// One value is an equality, which the planner also uses to order by the following index keys.
			if (strings.length === 1) parts.push(`${source.value} = ${strings[0]}`);
			else if (strings.length > 0) parts.push(`${source.value} IN (${strings.join(", ")})`);
			if (numbers.length > 0) parts.push(`(${source.value} IN (${numbers.join(", ")}) AND ${source.type} IN ('integer', 'real'))`);
			for (const test of others) parts.push(test(source));
			return or(parts);
		};
	}

	private comparison(operator: string, operand: unknown): Test {
		if (typeof operand === "number") {
			const p = this.param(operand);
			return source => `(${source.value} ${operator} ${p} AND ${source.type} IN ('integer', 'real'))`;
		}
		if (typeof operand === "string") {
			const p = this.param(operand);
			return source => `(${source.value} ${operator} ${p} AND ${source.type} = 'text')`;
		}
		if (typeof operand === "boolean") return source => `(${source.value} ${operator} ${operand ? 1 : 0} AND ${source.type} IN ('true', 'false'))`;
		if (operand instanceof Date) {
			const p = this.param(operand.getTime());
			return source => `${this.dateValue(source)} ${operator} ${p}`;
		}
		throw new Error("$gt, $gte, $lt and $lte need a number, a string, a boolean or a Date");
	}

	private regex(regex: RegExp): Test {
		checkRegex(regex);
		const p = this.param(`${regex.flags}/${regex.source}`);
		return source => `(${source.type} = 'text' AND ${REGEX_FUNCTION}(${p}, ${source.value}))`;
	}

	private dateValue(source: Source): string {
		if (source.path === null) return "NULL";
		return `json_extract(${this.root}, ${pathSql(childPath(source.path, segment(DATE_KEY)))})`;
	}
}

/** The strings of which a condition needs the field to equal or hold one (`"x"`, `{ $eq: "x" }`, `{ $in: ["x", "y"] }`), else none. */
function stringsSought(value: unknown): string[] {
	if (typeof value === "string") return [value];
	if (!isPlainObject(value) || Object.keys(value).length !== 1) return [];
	if (typeof value.$eq === "string") return [value.$eq];
	const list = value.$in;
	return Array.isArray(list) && list.length > 0 && list.every(item => typeof item === "string") ? list : [];
}

/** The sources of `field` below `place`. */
function fieldSources(translator: FilterTranslator, place: Place, field: string): (expand: boolean) => Source[] {
	return expand => {
		if (field === "_id" && place === ROOT_PLACE) {
			return [{ joins: [], guards: [], value: "_id", type: "'text'", path: null, norm: "_id", element: false }];
		}
		const out: Source[] = [];
		translator.walk(place.path, place.norm, place.maybeArray, field.split("."), { joins: [], guards: [] }, expand, out);
		return out;
	};
}

/** The document path of the element of `eachElement(sql, j)`: the array's path, then the element's key in it (`$[3]` less its `$`). */
function elementPath(sql: string, j: string): JsonPath {
	return { sql: `${sql} || substr(${j}.fullkey, 2)` };
}

/** `test` holds for at least one source: a condition of its own where reaching it takes no join, else EXISTS over the joins. */
function anySource(sources: Source[], test: Test): string {
	return or(
		sources.map(source => {
			const conditions = [...source.guards, test(source)];
			if (source.joins.length === 0) return and(conditions);
			return `EXISTS (SELECT 1 FROM ${source.joins.join(", ")} WHERE ${and(conditions)})`;
		})
	);
}
