import { parseFilterText } from "../../../shared/cel/parse-filter.js";
import type { Filter } from "../../../shared/store/document-store.js";
import { isConnective } from "../../../shared/cel/condition.js";
import type { MemoCondition, MemoPredicate } from "./memo-condition.js";
import { checkMemoFilter } from "./memo-filter-check.js";
import type { CompileEnv } from "./memo-filter-compile.js";
import { compileMemoCondition } from "./memo-filter-compile.js";
import { readsTagList } from "./tag-exists.js";

export type { CompileEnv } from "./memo-filter-compile.js";

/** A memo filter (contract 6.1, 6.2) that parsed and type-checked, not yet bound to a request. */
export interface CheckedMemoFilter {
	readonly condition: MemoCondition;
	/** Usernames of the `users/{username}` names it mentions, to resolve before compiling. */
	readonly usernames: string[];
	/** Compiling needs the distinct tags of the candidate memos (CompileEnv.tags; see tag-exists.ts). */
	readonly readsTags: boolean;
	/** It compares a time with `now()`: what it selects depends on the request time, not only on the data. */
	readonly readsNow: boolean;
}

/** Parses and checks `text`; anything invalid is INVALID_ARGUMENT. Empty or blank means no filter. */
export function parseMemoFilter(text: string | undefined): CheckedMemoFilter {
	if (text === undefined || text.trim() === "") return { condition: { kind: "const", value: true }, usernames: [], readsTags: false, readsNow: false };
	const { ast, source } = parseFilterText(text);
	const { condition, usernames } = checkMemoFilter(ast, source);
	return {
		condition,
		usernames,
		readsTags: somePredicate(condition, p => p.kind === "tagExists" && readsTagList(p.element)),
		readsNow: somePredicate(condition, p => p.kind === "time" && p.value.base === "now")
	};
}

function somePredicate(condition: MemoCondition, test: (predicate: MemoPredicate) => boolean): boolean {
	if (!isConnective(condition)) return test(condition);
	if (condition.kind === "const") return false;
	return condition.kind === "not" ? somePredicate(condition.item, test) : condition.items.some(item => somePredicate(item, test));
}

/** The one store query selecting the memos `filter` accepts, with `now` and user names of this request. */
export function compileMemoFilter(filter: CheckedMemoFilter, env: CompileEnv): Filter {
	return compileMemoCondition(filter.condition, env);
}
