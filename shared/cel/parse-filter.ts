import { Environment } from "@marcbachmann/cel-js";
import type { ASTNode } from "@marcbachmann/cel-js";
import { FILTER_MAX_COMPARISONS, FILTER_MAX_DEPTH, filterError, prepareFilterSource, type FilterSource } from "./filter-source.js";

// The parser's own limits back up the depth check of prepareFilterSource.
const cel = new Environment({
	unlistedVariablesAreDyn: true,
	limits: { maxAstNodes: 10_000, maxDepth: FILTER_MAX_DEPTH * 2, maxListElements: 1000, maxMapEntries: 100, maxCallArguments: 8 }
});

/**
 * A non-blank filter of the language of contract 6.1, parsed by cel-js after the rewrites of
 * prepareFilterSource; a syntax error is INVALID_ARGUMENT naming where it is.
 */
export function parseFilterText(text: string): { ast: ASTNode; source: FilterSource } {
	const source = prepareFilterSource(text);
	let ast: ASTNode;
	try {
		ast = cel.parse(source.cel).ast;
	} catch (err) {
		const { summary, range } = err as { summary?: unknown; range?: { start?: unknown } };
		const problem = typeof summary === "string" ? summary.split("\n")[0] : "syntax error";
		throw filterError(problem.replace(/^Exceeded maxDepth.*/, "nested too deeply"), source, typeof range?.start === "number" ? range.start : undefined);
	}
	if (comparisons(ast) > FILTER_MAX_COMPARISONS) throw filterError(`more than ${FILTER_MAX_COMPARISONS} comparisons`, null);
	return { ast, source };
}

const COMPARING: ReadonlySet<string> = new Set(["==", "!=", "<", "<=", ">", ">=", "in", "%"]);
const TESTS: ReadonlySet<string> = new Set(["contains", "startsWith", "endsWith"]);

/** Comparing nodes of the tree (`tags.exists` itself is not one), walked without recursion. */
function comparisons(root: ASTNode): number {
	let count = 0;
	const pending: unknown[] = [root];
	while (pending.length > 0) {
		const item = pending.pop();
		if (Array.isArray(item)) pending.push(...(item as unknown[]));
		else if (typeof item === "object" && item !== null && "op" in item) {
			const node = item as ASTNode;
			if (COMPARING.has(node.op) || (node.op === "rcall" && TESTS.has((node.args as [string, ...unknown[]])[0]))) count++;
			pending.push(node.args);
		}
	}
	return count;
}
