import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * The boundaries between services (issue 18): a service uses another only through that
 * service's contract module (`services/<b>/<b>.contract.ts`), shared code uses no service,
 * no project file imports itself back, and every action call and event goes through the typed
 * helpers of shared/contract.ts instead of naming it by a string.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The helpers themselves: the one place that hands names to Moleculer. */
const HELPERS = "shared/contract.ts";

function sourceFiles(dir: string): string[] {
	return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap(entry => {
		const rel = `${dir}/${entry.name}`;
		if (entry.isDirectory()) return sourceFiles(rel);
		return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [rel] : [];
	});
}

interface Parsed {
	file: string;
	/** Project files this one imports (type-only imports too), relative to the root. */
	imports: string[];
	/** Places that name an action or event by a string. */
	bareNames: string[];
}

/** The module a relative specifier names (`./x.js` is the source `./x.ts`). */
function resolve(from: string, specifier: string): string | undefined {
	if (!specifier.startsWith(".")) return undefined;
	return path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier)).replace(/\.js$/, ".ts");
}

const MESSAGING = new Set(["call", "mcall", "emit", "broadcast", "broadcastLocal"]);

function isStringName(node: ts.Node): boolean {
	return (
		ts.isStringLiteral(node) ||
		ts.isNoSubstitutionTemplateLiteral(node) ||
		ts.isTemplateExpression(node) ||
		(ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken && (isStringName(node.left) || isStringName(node.right)))
	);
}

export function parse(file: string, text: string): Parsed {
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
	const imports: string[] = [];
	const bareNames: string[] = [];
	const where = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText().split("\n")[0]}`;
	const visit = (node: ts.Node): void => {
		if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
			const target = resolve(file, node.moduleSpecifier.text);
			if (target) imports.push(target);
		}
		if (ts.isCallExpression(node)) {
			const [first] = node.arguments;
			if (node.expression.kind === ts.SyntaxKind.ImportKeyword && first && ts.isStringLiteral(first)) {
				const target = resolve(file, first.text);
				if (target) imports.push(target);
			}
			if (ts.isPropertyAccessExpression(node.expression) && MESSAGING.has(node.expression.name.text) && first && isStringName(first)) {
				bareNames.push(where(node));
			}
		}
		// An `events` block of a schema: handlers are declared with onEvent(ref, …) or a ref's name.
		if (ts.isPropertyAssignment(node) && node.name.getText() === "events" && ts.isObjectLiteralExpression(node.initializer)) {
			for (const handler of node.initializer.properties) {
				if (!ts.isSpreadAssignment(handler) && handler.name && !ts.isComputedPropertyName(handler.name)) bareNames.push(where(handler));
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return { file, imports, bareNames };
}

/** `services/<name>/…` → name; files directly under services/ (the catalog, main) compose every service. */
function serviceOf(file: string): string | undefined {
	const parts = file.split("/");
	return parts[0] === "services" && parts.length > 2 ? parts[1] : undefined;
}

export function boundaryViolations(files: Parsed[]): string[] {
	const violations: string[] = [];
	for (const { file, imports } of files) {
		const own = serviceOf(file);
		for (const target of imports) {
			if (file.startsWith("shared/") && target.startsWith("services/")) violations.push(`${file} imports ${target}: shared code uses no service`);
			const other = serviceOf(target);
			if (own !== undefined && other !== undefined && other !== own && target !== `services/${other}/${other}.contract.ts`) {
				violations.push(`${file} imports ${target}: only services/${other}/${other}.contract.ts is public`);
			}
		}
	}
	return violations;
}

/** Every cycle of the import graph, one per strongly connected component, as a path. */
export function importCycles(files: Parsed[]): string[][] {
	const graph = new Map(files.map(f => [f.file, f.imports.filter((t, i, all) => all.indexOf(t) === i)]));
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const cycles: string[][] = [];
	const connect = (node: string): void => {
		index.set(node, index.size);
		low.set(node, index.get(node) as number);
		stack.push(node);
		onStack.add(node);
		for (const next of graph.get(node) ?? []) {
			if (!graph.has(next)) continue;
			if (!index.has(next)) {
				connect(next);
				low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
			} else if (onStack.has(next)) low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
		}
		if (low.get(node) !== index.get(node)) return;
		const component: string[] = [];
		let member: string;
		do {
			member = stack.pop() as string;
			onStack.delete(member);
			component.push(member);
		} while (member !== node);
		if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
	};
	for (const node of graph.keys()) if (!index.has(node)) connect(node);
	return cycles;
}

const PROJECT = [...sourceFiles("services"), ...sourceFiles("shared")].map(file => parse(file, readFileSync(path.join(ROOT, file), "utf8")));

describe("service boundaries", () => {
	test("a service imports another only through its contract, shared code imports no service", () => {
		expect(boundaryViolations(PROJECT)).toEqual([]);
	});

	test("no import cycle among project files", () => {
		expect(importCycles(PROJECT)).toEqual([]);
	});

	test("no action or event is named by a string outside the contract helpers", () => {
		expect(PROJECT.filter(f => f.file !== HELPERS).flatMap(f => f.bareNames)).toEqual([]);
	});

	describe("the checks catch", () => {
		const file = (name: string, text: string) => parse(name, text);

		test("an implementation import across services and a service import from shared code", () => {
			const files = [
				file("services/spaces/x.ts", 'import type { UserRef } from "../auth/auth.service.js";\nimport { authActions } from "../auth/auth.contract.js";'),
				file("shared/y.ts", 'import { memosActions } from "../services/memos/memos.contract.js";')
			];
			expect(boundaryViolations(files)).toEqual([
				"services/spaces/x.ts imports services/auth/auth.service.ts: only services/auth/auth.contract.ts is public",
				"shared/y.ts imports services/memos/memos.contract.ts: shared code uses no service"
			]);
		});

		test("a cycle, type-only and re-exports included", () => {
			const files = [
				file("services/memos/a.ts", 'import type { B } from "./b.js";'),
				file("services/memos/b.ts", 'export { C } from "./c.js";'),
				file("services/memos/c.ts", 'import { A } from "./a.js";'),
				file("services/memos/d.ts", 'import { A } from "./a.js";')
			];
			expect(importCycles(files)).toEqual([["services/memos/a.ts", "services/memos/b.ts", "services/memos/c.ts"]]);
		});

		test("calls, emits and event handlers named by strings", () => {
			const { bareNames } = file(
				"services/x/x.service.ts",
				[
					'await ctx.call("memos.touch", { memoId });',
					"await this.broker.broadcast(`space.member.${kind}`, payload);",
					'await call(ctx, memosActions.touch, { memoId });',
					"export default { events: { \"space.member.*\"(ctx) {}, ...onEvent(authEvents.userChanged, handler), [settingUpdated.name]: handler } };"
				].join("\n")
			);
			expect(bareNames.map(place => place.split(":")[1])).toEqual(["1", "2", "4"]);
		});
	});
});
