import type { Filter } from "../store/document-store.js";
import { isConnective, type Condition } from "./condition.js";
import { secondRange } from "./time-values.js";

/**
 * Pieces of the store queries that filters compile to (memos and attachments), in the
 * operators both document-store adapters run.
 */

export type Comparison = "==" | "!=" | "<" | "<=" | ">" | ">=";

/** The comparison that holds exactly when `op` does not. */
export const NEGATED: Record<Comparison, Comparison> = { "==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<" };

/** The same comparison with its operands swapped (`5 < x` is `x > 5`). */
export const MIRRORED: Record<Comparison, Comparison> = { "==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<=" };

/** A query, or a constant where the condition does not depend on the document. */
export type Compiled = Filter | boolean;

export function all(items: Compiled[]): Compiled {
	if (items.includes(false)) return false;
	const queries = items.filter((item): item is Filter => item !== true);
	if (queries.length === 0) return true;
	return queries.length === 1 ? queries[0] : { $and: queries };
}

export function any(items: Compiled[]): Compiled {
	if (items.includes(true)) return true;
	const queries = items.filter((item): item is Filter => item !== false);
	if (queries.length === 0) return false;
	return queries.length === 1 ? queries[0] : { $or: queries };
}

/**
 * A condition's constants and connectives, with negation pushed down to the predicates (De
 * Morgan, since MongoDB has no top-level `$not`): `predicate` compiles each one, asserted or denied.
 */
export function compileCondition<P extends { kind: string }>(
	condition: Condition<P>,
	positive: boolean,
	predicate: (item: P, positive: boolean) => Compiled
): Compiled {
	if (!isConnective(condition)) return predicate(condition, positive);
	switch (condition.kind) {
		case "const":
			return condition.value === positive;
		case "not":
			return compileCondition(condition.item, !positive, predicate);
		case "and":
		case "or": {
			const items = condition.items.map(item => compileCondition(item, positive, predicate));
			return (condition.kind === "and") === positive ? all(items) : any(items);
		}
	}
}

/** A compiled condition as one query: true selects everything, false nothing. */
export function toQuery(compiled: Compiled): Filter {
	if (compiled === true) return {};
	if (compiled === false) return { _id: { $in: [] } };
	return compiled;
}

export function matchRegex(field: string, regex: RegExp, positive: boolean): Filter {
	return { [field]: positive ? { $regex: regex } : { $not: regex } };
}

/** Stored milliseconds compared as whole seconds (contract 1.2): second S is `[S*1000, S*1000+1000)`. */
export function timeQuery(path: string, op: Comparison, seconds: bigint): Filter {
	const { from, to } = secondRange(seconds);
	switch (op) {
		case "==":
			return { [path]: { $gte: from, $lt: to } };
		case "!=":
			return { $or: [{ [path]: { $lt: from } }, { [path]: { $gte: to } }] };
		case "<":
			return { [path]: { $lt: from } };
		case "<=":
			return { [path]: { $lt: to } };
		case ">":
			return { [path]: { $gte: to } };
		case ">=":
			return { [path]: { $gte: from } };
	}
}
