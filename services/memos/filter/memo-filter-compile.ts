import type { Filter } from "../../../shared/store/document-store.js";
import type { Comparison, FlagField, MemoCondition, MemoPredicate, TimeField } from "./memo-condition.js";
import { NEGATED, compileCondition, matchRegex, timeQuery, toQuery, type Compiled } from "../../../shared/cel/query-parts.js";
import { textRegex } from "../../../shared/cel/text-match.js";
import { resolveSeconds } from "../../../shared/cel/time-values.js";
import { tagExists } from "./tag-exists.js";

export interface CompileEnv {
	/** The request time in epoch milliseconds, fixed once per request. */
	now: number;
	/** Auth user ids by username, for the names the filter references; unknown names match nothing. */
	creatorIds: ReadonlyMap<string, string>;
	/** The distinct tags of the candidate memos, read when the filter needs them (CheckedMemoFilter.readsTags). */
	tags?: readonly string[];
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
 * One document-store query in the operators every adapter runs (no `$where`, `$expr` or
 * `$elemMatch`), regular expressions only of the linear forms of text-match.ts.
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
			return matchRegex("content", textRegex(condition.fn, condition.value), positive);
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
			return tagExists(condition.element, positive, env.tags);
		case "tagCount":
			return tagCount(positive ? condition.op : NEGATED[condition.op], condition.value);
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
