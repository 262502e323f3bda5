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
 */

const PREFIX = "@";

/** The field whose column `name` is, or null for `_id`, `doc` and anything else. */
export function fieldOfColumn(name: string): string | null {
	return name.startsWith(PREFIX) ? name.slice(PREFIX.length) : null;
}

/** The quoted SQL name of `field`'s column (field names never hold a double quote: filter-sql.ts refuses them). */
export function columnOf(field: string): string {
	return `"${PREFIX}${field}"`;
}

/** What fills `field`'s column from the document text bound as `?2`, or held by `doc` (a backfill). */
export function columnValue(field: string, text = "?2"): string {
	return `json_extract(${text}, ${sqlString(jsonPath(field))})`;
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
	/** `jsonPath(field)` → the column, for the query translation. */
	readonly byPath: ReadonlyMap<string, string>;
	private readonly segments: string[][];
	private readonly insertSql: string;
	private readonly updates = new Map<string, string>();

	constructor(
		private readonly table: string,
		readonly fields: readonly string[]
	) {
		this.byPath = new Map(fields.map(field => [jsonPath(field), columnOf(field)]));
		this.segments = fields.map(field => field.split("."));
		const names = fields.map(field => `, ${columnOf(field)}`).join("");
		const values = fields.map(field => `, ${columnValue(field)}`).join("");
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
		const changed = this.fields.filter((_, i) => before[i] !== after[i]);
		const cacheKey = changed.join("\n");
		let sql = this.updates.get(cacheKey);
		if (sql === undefined) {
			sql = `UPDATE ${this.table} SET doc = ?2${changed.map(field => `, ${columnOf(field)} = ${columnValue(field)}`).join("")} WHERE _id = ?1`;
			this.updates.set(cacheKey, sql);
		}
		return sql;
	}
}
