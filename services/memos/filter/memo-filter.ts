import { parseFilterText } from "../../../shared/cel/parse-filter.js";
import type { Filter } from "../../../shared/store/document-store.js";
import type { MemoCondition } from "./memo-condition.js";
import { checkMemoFilter } from "./memo-filter-check.js";
import type { CompileEnv } from "./memo-filter-compile.js";
import { compileMemoCondition } from "./memo-filter-compile.js";

export type { CompileEnv } from "./memo-filter-compile.js";

/** A memo filter (contract 6.1, 6.2) that parsed and type-checked, not yet bound to a request. */
export interface CheckedMemoFilter {
	readonly condition: MemoCondition;
	/** Usernames of the `users/{username}` names it mentions, to resolve before compiling. */
	readonly usernames: string[];
}

/** Parses and checks `text`; anything invalid is INVALID_ARGUMENT. Empty or blank means no filter. */
export function parseMemoFilter(text: string | undefined): CheckedMemoFilter {
	if (text === undefined || text.trim() === "") return { condition: { kind: "const", value: true }, usernames: [] };
	const { ast, source } = parseFilterText(text);
	return checkMemoFilter(ast, source);
}

/** The one store query selecting the memos `filter` accepts, with `now` and user names of this request. */
export function compileMemoFilter(filter: CheckedMemoFilter, env: CompileEnv): Filter {
	return compileMemoCondition(filter.condition, env);
}
