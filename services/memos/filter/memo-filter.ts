import { Environment } from "@marcbachmann/cel-js";
import type { ASTNode } from "@marcbachmann/cel-js";
import type { Filter } from "../../../shared/store/document-store.js";
import { FILTER_MAX_DEPTH, filterError, prepareFilterSource } from "./filter-source.js";
import type { MemoCondition } from "./memo-condition.js";
import { checkMemoFilter } from "./memo-filter-check.js";
import type { CompileEnv } from "./memo-filter-compile.js";
import { compileCondition } from "./memo-filter-compile.js";

export type { CompileEnv } from "./memo-filter-compile.js";

/** A memo filter (contract 6.1, 6.2) that parsed and type-checked, not yet bound to a request. */
export interface CheckedMemoFilter {
	readonly condition: MemoCondition;
	/** Usernames of the `users/{username}` names it mentions, to resolve before compiling. */
	readonly usernames: string[];
}

// The parser's own limits back up the depth check of prepareFilterSource.
const cel = new Environment({
	unlistedVariablesAreDyn: true,
	limits: { maxAstNodes: 10_000, maxDepth: FILTER_MAX_DEPTH * 2, maxListElements: 1000, maxMapEntries: 100, maxCallArguments: 8 }
});

/** Parses and checks `text`; anything invalid is INVALID_ARGUMENT. Empty or blank means no filter. */
export function parseMemoFilter(text: string | undefined): CheckedMemoFilter {
	if (text === undefined || text.trim() === "") return { condition: { kind: "const", value: true }, usernames: [] };
	const source = prepareFilterSource(text);
	let ast: ASTNode;
	try {
		ast = cel.parse(source.cel).ast;
	} catch (err) {
		const { summary, range } = err as { summary?: unknown; range?: { start?: unknown } };
		const problem = typeof summary === "string" ? summary.split("\n")[0] : "syntax error";
		throw filterError(problem.replace(/^Exceeded maxDepth.*/, "nested too deeply"), source, typeof range?.start === "number" ? range.start : undefined);
	}
	return checkMemoFilter(ast, source);
}

/** The one store query selecting the memos `filter` accepts, with `now` and user names of this request. */
export function compileMemoFilter(filter: CheckedMemoFilter, env: CompileEnv): Filter {
	return compileCondition(filter.condition, env);
}
