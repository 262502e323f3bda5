import type { Filter } from "../../../shared/store/document-store.js";
import type { Comparison, FlagField, MemoCondition, MemoPredicate, TagCondition, TimeField } from "./memo-condition.js";
import { NEGATED, compileCondition, matchRegex, timeQuery, toQuery, type Compiled } from "../../../shared/cel/query-parts.js";
import { END, exactPattern, storeRegex, textFunctionPattern } from "../../../shared/cel/text-match.js";
import { resolveSeconds } from "../../../shared/cel/time-values.js";

export interface CompileEnv {
	/** The request time in epoch milliseconds, fixed once per request. */
	now: number;
	/** Auth user ids by username, for the names the filter references; unknown names match nothing. */
	creatorIds: ReadonlyMap<string, string>;
}

const FLAG_PATHS: Record<Exclude<FlagField, "has_location">, string> = {
	pinned: "pinned",
	has_task_list: "property.hasTaskList",
	has_link: "property.hasLink",
	has_code: "property.hasCode",
	has_incomplete_tasks: "property.hasIncompleteTasks"
};
const TIME_PATHS: Record<TimeField, string> = { created_ts: "createTime", updated_ts: "updateTime" };
// Size bounds beyond any real tag list keep `tags.N` paths small.
const MAX_TAG_COUNT = 2n ** 31n;

/**
 * One document-store query in the operators both adapters run (no `$where`, `$expr` or
 * `$elemMatch`).
 */
export function compileMemoCondition(condition: MemoCondition, env: CompileEnv): Filter {
	return toQuery(compileCondition(condition, true, (predicate, positive) => compilePredicate(predicate, positive, env)));
}

function compilePredicate(condition: MemoPredicate, positive: boolean, env: CompileEnv): Compiled {
	switch (condition.kind) {
		case "flag": {
			const wanted = condition.value === positive;
			if (condition.field === "has_location") return { location: wanted ? { $ne: null } : null };
			return { [FLAG_PATHS[condition.field]]: wanted ? true : { $ne: true } };
		}
		case "content":
			return { content: positive ? condition.value : { $ne: condition.value } };
		case "contentIn":
			return { content: { [positive ? "$in" : "$nin"]: condition.values } };
		case "contentText":
			return matchRegex("content", storeRegex(textFunctionPattern(condition.fn, condition.value)), positive);
		case "visibility":
			return { visibility: { [positive ? "$in" : "$nin"]: condition.values } };
		case "creator": {
			const ids = condition.usernames.flatMap(name => env.creatorIds.get(name) ?? []);
			if (ids.length === 0) return !positive;
			return { creatorId: { [positive ? "$in" : "$nin"]: ids } };
		}
		case "time":
			return timeQuery(TIME_PATHS[condition.field], positive ? condition.op : NEGATED[condition.op], resolveSeconds(condition.value, env.now));
		case "space":
			return { spaceId: positive ? condition.spaceId : { $ne: condition.spaceId } };
		case "tagIn":
			return { tags: { [positive ? "$in" : "$nin"]: condition.values } };
		case "tagExists":
			return tagExists(condition.element, positive);
		case "tagCount":
			return tagCount(positive ? condition.op : NEGATED[condition.op], condition.value);
	}
}

/**
 * `tags.exists(t, …)`: a test on one element is one regular expression on the whole tag,
 * built from zero-width assertions at its start, since a regular expression on an array
 * field matches when any element matches (in both stores). Plain equality and `in` keep the
 * simple forms, which an index can serve.
 */
function tagExists(element: TagCondition, positive: boolean): Compiled {
	// exists(t, true) still needs a tag to exist, so only false is a constant.
	if (element.kind === "const" && !element.value) return !positive;
	if (element.kind === "in") return { tags: { [positive ? "$in" : "$nin"]: element.values } };
	return matchRegex("tags", storeRegex(`^${tagAssertion(element)}`), positive);
}

function tagAssertion(condition: TagCondition): string {
	switch (condition.kind) {
		case "const":
			return condition.value ? "" : "(?!)";
		case "and":
			return condition.items.map(tagAssertion).join("");
		case "or":
			return condition.items.length === 0 ? "(?!)" : `(?:${condition.items.map(tagAssertion).join("|")})`;
		case "not":
			return `(?!${tagAssertion(condition.item)})`;
		case "in":
			return condition.values.length === 0 ? "(?!)" : `(?=(?:${condition.values.map(exactPattern).join("|")})${END})`;
		case "text": {
			const pattern = textFunctionPattern(condition.fn, condition.value);
			return condition.fn === "startsWith" ? `(?=${pattern.slice(1)})` : `(?=[\\s\\S]*?${pattern})`;
		}
	}
}

/** `$size` tests equality only; longer-than is "element N exists". */
function tagCount(op: Comparison, count: bigint): Compiled {
	if (count > MAX_TAG_COUNT) return op === "<" || op === "<=" || op === "!=";
	const has = (n: bigint) => ({ [`tags.${n}`]: { $exists: true } });
	const lacks = (n: bigint) => ({ [`tags.${n}`]: { $exists: false } });
	switch (op) {
		case "==":
			return count < 0n ? false : { tags: { $size: Number(count) } };
		case "!=":
			return count < 0n ? true : { tags: { $not: { $size: Number(count) } } };
		case ">":
			return count < 0n ? true : has(count);
		case ">=":
			return count <= 0n ? true : has(count - 1n);
		case "<":
			return count <= 0n ? false : lacks(count - 1n);
		case "<=":
			return count < 0n ? false : lacks(count);
	}
}
