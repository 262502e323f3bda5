import { isConnective } from "../../../shared/cel/condition.js";
import { all, any, type Compiled } from "../../../shared/cel/query-parts.js";
import { textRegex } from "../../../shared/cel/text-match.js";
import type { Filter } from "../../../shared/store/document-store.js";
import type { TagCondition } from "./memo-condition.js";

/**
 * `tags.exists(t, …)` in store operators only (contract 19: no regular expression built from a
 * filter may backtrack). `exists` distributes over `||`, so the element condition is split
 * into its disjuncts; a disjunct that is one test asserted (`t in […]`, `t.startsWith(…)`) is
 * a query on the array field, which matches when any element does. A disjunct that needs one
 * element to meet several tests, or a denied test, has no such query: it is decided here for
 * each distinct tag of the candidate memos, in time linear in those tags, and becomes an `$in`
 * of the tags it accepts.
 */

interface Disjunct {
	condition: TagCondition;
	positive: boolean;
}

function disjuncts(condition: TagCondition, positive: boolean, into: Disjunct[] = []): Disjunct[] {
	if (condition.kind === "not") return disjuncts(condition.item, !positive, into);
	if ((condition.kind === "or" && positive) || (condition.kind === "and" && !positive)) {
		for (const item of condition.items) disjuncts(item, positive, into);
	} else if (condition.kind !== "const" || condition.value === positive) into.push({ condition, positive });
	return into;
}

function isStoreQuery({ condition, positive }: Disjunct): boolean {
	return condition.kind === "const" || (positive && (condition.kind === "in" || condition.kind === "text"));
}

/** Whether compiling `tags.exists(t, element)` needs the distinct tags of the candidate memos. */
export function readsTagList(element: TagCondition): boolean {
	return !disjuncts(element, true).every(isStoreQuery);
}

function matcher(condition: TagCondition): (tag: string) => boolean {
	if (!isConnective(condition)) {
		if (condition.kind === "in") {
			const values = new Set(condition.values);
			return tag => values.has(tag);
		}
		const regex = textRegex(condition.fn, condition.value);
		return tag => regex.test(tag);
	}
	switch (condition.kind) {
		case "const":
			return () => condition.value;
		case "not": {
			const item = matcher(condition.item);
			return tag => !item(tag);
		}
		case "and":
		case "or": {
			const items = condition.items.map(matcher);
			return condition.kind === "and" ? tag => items.every(item => item(tag)) : tag => items.some(item => item(tag));
		}
	}
}

/** `tags` holds the distinct tags of the candidate memos; required when readsTagList(element). */
export function tagExists(element: TagCondition, positive: boolean, tags: readonly string[] | undefined): Compiled {
	let anyTag = false;
	const values = new Set<string>();
	const regexes: RegExp[] = [];
	const decided: ((tag: string) => boolean)[] = [];
	for (const disjunct of disjuncts(element, true)) {
		const { condition } = disjunct;
		if (condition.kind === "const") anyTag = true;
		else if (isStoreQuery(disjunct) && condition.kind === "in") for (const value of condition.values) values.add(value);
		else if (isStoreQuery(disjunct) && condition.kind === "text") regexes.push(textRegex(condition.fn, condition.value));
		else {
			const accepts = matcher(condition);
			decided.push(disjunct.positive ? accepts : tag => !accepts(tag));
		}
	}
	if (decided.length > 0) {
		if (tags === undefined) throw new Error("tags.exists needs the candidate memos' tags to compile");
		for (const tag of tags) if (decided.some(accepts => accepts(tag))) values.add(tag);
	}
	const queries: Filter[] = [];
	if (anyTag) queries.push({ "tags.0": { $exists: positive } });
	if (values.size > 0) queries.push({ tags: { [positive ? "$in" : "$nin"]: [...values] } });
	for (const regex of regexes) queries.push({ tags: positive ? { $regex: regex } : { $not: regex } });
	return positive ? any(queries) : all(queries);
}
