import type { Filter, IndexSpec, Sort } from "../../shared/store/document-store.js";

/**
 * A small model of MongoDB's query planner (issue 21): whether a query shape is served by one
 * of a collection's declared indexes without a blocking SORT stage or a COLLSCAN. Its rules:
 * a field compared by equality (a value, `$eq`, `$in`) gives point bounds; `$gt`…`$lte`
 * give a range, and `$ne`/`$nin` several ranges (neither is a point); other operators bound
 * nothing (they filter what the index reads). An index serves a sort when, its point-bounded
 * fields left out of both, the sort's keys are the first keys of the index in its order or
 * all reversed: a range before the sort keys breaks the order, so ranges come last. An index
 * is usable when its first field is bounded, or the query has no condition at all (an ordered
 * walk). A top-level `$or` no single index serves is planned branch by branch, each branch
 * (with the query's other conditions) needing an index of its own, merged in order.
 */

type Bound = "point" | "range";

/** The query's top-level conditions: its `$and` flattened, with the `$or`s apart. */
function conjunctsOf(filter: Filter): { fields: [string, unknown][]; ors: Filter[][] } {
	const fields: [string, unknown][] = [];
	const ors: Filter[][] = [];
	for (const [key, value] of Object.entries(filter)) {
		if (key === "$and") {
			for (const part of value as Filter[]) {
				const inner = conjunctsOf(part);
				fields.push(...inner.fields);
				ors.push(...inner.ors);
			}
		} else if (key === "$or") {
			ors.push(value as Filter[]);
		} else if (!key.startsWith("$")) {
			fields.push([key, value]);
		}
	}
	return { fields, ors };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof RegExp);
}

function boundOf(value: unknown): Bound | undefined {
	if (value instanceof RegExp || Array.isArray(value)) return undefined;
	if (!isPlainObject(value)) return "point";
	const operators = Object.keys(value);
	if (operators.length === 0 || operators.some(op => !op.startsWith("$"))) return "point";
	if (operators.includes("$eq") || operators.includes("$in")) return "point";
	if (operators.some(op => ["$gt", "$gte", "$lt", "$lte", "$ne", "$nin"].includes(op))) return "range";
	return undefined;
}

/** The bound each field gets from the query's top-level conditions (a point beats a range). */
export function boundsOf(filter: Filter): Map<string, Bound> {
	const bounds = new Map<string, Bound>();
	for (const [field, value] of conjunctsOf(filter).fields) {
		const bound = boundOf(value);
		if (bound !== undefined && bounds.get(field) !== "point") bounds.set(field, bound);
	}
	return bounds;
}

/** Whether `index` gives `sort`'s order with the query's point-bounded fields left out. */
function givesOrder(index: IndexSpec, sort: Sort, bounds: Map<string, Bound>): boolean {
	const keys = Object.entries(index.fields).filter(([field]) => bounds.get(field) !== "point");
	const wanted = Object.entries(sort).filter(([field]) => bounds.get(field) !== "point");
	if (wanted.length === 0) return true;
	if (keys.length < wanted.length) return false;
	const flip = keys[0][1] === wanted[0][1] ? 1 : -1;
	return wanted.every(([field, direction], i) => keys[i][0] === field && keys[i][1] * flip === direction);
}

export interface Shape {
	filter: Filter;
	sort?: Sort;
}

/** The index that serves `shape` alone, if any. */
function servingIndex(shape: Shape, indexes: readonly IndexSpec[], bounds: Map<string, Bound>, unconditioned: boolean): IndexSpec | undefined {
	return indexes.find(index => {
		const first = Object.keys(index.fields)[0];
		const usable = bounds.has(first) || (unconditioned && shape.sort !== undefined);
		return usable && (shape.sort === undefined || givesOrder(index, shape.sort, bounds));
	});
}

/**
 * Why MongoDB would not serve `shape` from `indexes` (the `_id` index included): a blocking
 * sort or a collection scan; null when an index (or one per `$or` branch) serves it.
 */
export function unservedReason(shape: Shape, declared: readonly IndexSpec[]): string | null {
	const indexes = [{ fields: { _id: 1 } } as IndexSpec, ...declared];
	const bounds = boundsOf(shape.filter);
	const { fields, ors } = conjunctsOf(shape.filter);
	const unconditioned = fields.length === 0 && ors.length === 0;
	if (servingIndex(shape, indexes, bounds, unconditioned) !== undefined) return null;
	for (const [i, or] of ors.entries()) {
		const rest = ors.filter((_, j) => j !== i).map(branches => ({ $or: branches }));
		const reasons = or.map(branch => unservedReason({ filter: { $and: [branch, ...fields.map(([f, v]) => ({ [f]: v })), ...rest] }, sort: shape.sort }, declared));
		if (reasons.every(reason => reason === null)) return null;
	}
	const anyBounded = indexes.some(index => bounds.has(Object.keys(index.fields)[0]));
	return anyBounded ? `no index gives the order ${JSON.stringify(shape.sort)} after the equality prefix (blocking SORT)` : "no index bounds the query (COLLSCAN)";
}
