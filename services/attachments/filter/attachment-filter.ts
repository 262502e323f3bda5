import { parseFilterText } from "../../../shared/cel/parse-filter.js";
import { NEGATED, compileCondition, matchRegex, timeQuery, toQuery, type Compiled } from "../../../shared/cel/query-parts.js";
import { textRegex } from "../../../shared/cel/text-match.js";
import { resolveSeconds } from "../../../shared/cel/time-values.js";
import type { Filter } from "../../../shared/store/document-store.js";
import type { AttachmentPredicate, CheckedAttachmentFilter, StringField } from "./attachment-condition.js";
import { checkAttachmentFilter } from "./attachment-filter-check.js";

export type { CheckedAttachmentFilter } from "./attachment-condition.js";

const PATHS: Record<StringField, string> = { filename: "filename", mime_type: "type" };
const OPERATORS = { "<": "$lt", "<=": "$lte", ">": "$gt", ">=": "$gte" } as const;

/** Parses and checks a ListAttachments filter (contract 6.3); blank means none. Invalid: INVALID_ARGUMENT. */
export function parseAttachmentFilter(text: string | undefined): CheckedAttachmentFilter {
	if (text === undefined || text.trim() === "") return { condition: { kind: "const", value: true }, spaceId: undefined };
	const { ast, source } = parseFilterText(text);
	return checkAttachmentFilter(ast, source);
}

/** The one store query for the filter's condition (the space term is applied by the caller), `now` in epoch ms. */
export function compileAttachmentFilter(filter: CheckedAttachmentFilter, now: number): Filter {
	return toQuery(compileCondition(filter.condition, true, (predicate, positive) => compilePredicate(predicate, positive, now)));
}

function compilePredicate(condition: AttachmentPredicate, positive: boolean, now: number): Compiled {
	switch (condition.kind) {
		case "string": {
			const op = positive ? condition.op : NEGATED[condition.op];
			const path = PATHS[condition.field];
			if (op === "==") return { [path]: condition.value };
			if (op === "!=") return { [path]: { $ne: condition.value } };
			return { [path]: { [OPERATORS[op]]: condition.value } };
		}
		case "stringIn":
			return { [PATHS[condition.field]]: { [positive ? "$in" : "$nin"]: condition.values } };
		case "text":
			return matchRegex(PATHS[condition.field], textRegex(condition.fn, condition.value), positive);
		case "time":
			return timeQuery("createTime", positive ? condition.op : NEGATED[condition.op], resolveSeconds(condition.value, now));
		case "memo":
			return { memoId: positive ? condition.memoId : { $ne: condition.memoId } };
		case "memoIn":
			return { memoId: { [positive ? "$in" : "$nin"]: condition.memoIds } };
	}
}
