import { isPlainObject, toJson } from "./json-value.js";
import { jsonPath, sqlString } from "./filter-sql.js";

/**
 * The real columns a collection's table keeps beside `doc`: one per field path that an index
 * names (`_id` is a column already), named `@<path>` and holding exactly what
 * `json_extract(doc, '$.<path>')` gives, computed by that function from the document's text as
 * it is written. Indexes are built on these columns rather than on expressions over `doc`: an
 * UPDATE then names only the columns whose value changed, and SQLite rewrites only the index
 * entries that involve them (every expression index over `doc` was rewritten by every write:
 * ~53 entries per write of a memo). Queries and sorts read the column where the expression was.
 *
 * JSON columns, named `#<path>`, hold the JSON text of the value at a path (`doc -> '$.<path>'`,
 * NULL when it is missing) for the array fields whose elements filters test
 * (Collection.ensureArrayField): the test then parses that short text, not the whole document.
 */

const PREFIX = "@";
const JSON_PREFIX = "#";

/** A field's column: its value (`json_extract`), or with `json` its JSON text (`->`). */
export interface FieldColumn {
	field: string;
	json: boolean;
}

/** The field column `name` is, or null for `_id`, `doc` and anything else. */
export function columnNamed(name: string): FieldColumn | null {
	if (name.startsWith(PREFIX)) return { field: name.slice(PREFIX.length), json: false };
	if (name.startsWith(JSON_PREFIX)) return { field: name.slice(JSON_PREFIX.length), json: true };
	return null;
}

/** The quoted SQL name of `field`'s column (field names never hold a double quote: filter-sql.ts refuses them). */
export function columnOf(field: string, json = false): string {
	return `"${json ? JSON_PREFIX : PREFIX}${field}"`;
}

/** What fills `field`'s column from the document text bound as `?2`, or held by `doc` (a backfill). */
export function columnValue(field: string, text = "?2", json = false): string {
	return json ? `${text} -> ${sqlString(jsonPath(field))}` : `json_extract(${text}, ${sqlString(jsonPath(field))})`;
}

/**
 * A comparable key of the value `json_extract` reads at `field` in `doc` (a document as the
 * port holds it, Dates as Dates): equal keys, equal column values. Values are keyed in their
 * stored form (a Date is not the string of its ISO time). Only plain objects are walked into;
 * any other value met on the way (an array, a Date, a scalar) keys the path by itself, which
 * can only report a change where there is none.
 */
function valueKey(doc: Record<string, unknown>, segments: readonly string[]): string {
	let node: unknown = doc;
	for (const [depth, key] of segments.entries()) {
		if (node === undefined || node === null) return "";
		if (!isPlainObject(node)) return `${depth}:${JSON.stringify(toJson(node))}`;
		node = node[key];
	}
	return node === undefined ? "" : `:${JSON.stringify(toJson(node))}`;
}

/** A table's field columns and the statements that write them. */
export class FieldColumns {
	/** The fields with a value column. */
	readonly fields: readonly string[];
	/** The fields with a JSON column. */
	readonly jsonFields: readonly string[];
	/** `jsonPath(field)` → the value column, for the query translation. */
	readonly byPath: ReadonlyMap<string, string>;
	/** `jsonPath(field)` → the JSON column, for the query translation. */
	readonly jsonByPath: ReadonlyMap<string, string>;
	private readonly segments: string[][];
	private readonly insertSql: string;
	private readonly updates = new Map<string, string>();

	constructor(
		private readonly table: string,
		private readonly columns: readonly FieldColumn[]
	) {
		this.fields = columns.filter(column => !column.json).map(column => column.field);
		this.jsonFields = columns.filter(column => column.json).map(column => column.field);
		this.byPath = new Map(this.fields.map(field => [jsonPath(field), columnOf(field)]));
		this.jsonByPath = new Map(this.jsonFields.map(field => [jsonPath(field), columnOf(field, true)]));
		this.segments = columns.map(column => column.field.split("."));
		const names = columns.map(column => `, ${columnOf(column.field, column.json)}`).join("");
		const values = columns.map(column => `, ${columnValue(column.field, "?2", column.json)}`).join("");
		this.insertSql = `INSERT INTO ${table} (_id, doc${names}) VALUES (?1, ?2${values})`;
	}

	/** The INSERT of `_id` (?1) and the document's text (?2) with its columns. */
	insert(): string {
		return this.insertSql;
	}

	/** The keys of the columns' values in `doc` (see valueKey), to compare before and after an update. */
	keys(doc: Record<string, unknown>): string[] {
		return this.segments.map(segments => valueKey(doc, segments));
	}

	/** The UPDATE of row `_id` (?1) to the text ?2 that writes the columns whose keys differ from `before`. */
	update(before: readonly string[], after: readonly string[]): string {
		const changed = this.columns.filter((_, i) => before[i] !== after[i]);
		const cacheKey = changed.map(column => columnOf(column.field, column.json)).join("\n");
		let sql = this.updates.get(cacheKey);
		if (sql === undefined) {
			const sets = changed.map(column => `, ${columnOf(column.field, column.json)} = ${columnValue(column.field, "?2", column.json)}`).join("");
			sql = `UPDATE ${this.table} SET doc = ?2${sets} WHERE _id = ?1`;
			this.updates.set(cacheKey, sql);
		}
		return sql;
	}
}
