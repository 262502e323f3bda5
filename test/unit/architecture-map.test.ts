import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { authEvents } from "../../services/auth/auth.contract.js";
import { instanceEvents } from "../../services/instance/instance.contract.js";
import { memoEvents } from "../../services/memos/memos.contract.js";
import { spacesEvents } from "../../services/spaces/spaces.contract.js";
import type { EventRef } from "../../shared/contract.js";

/**
 * The service map of ARCHITECTURE.md (and the README) stays true: its services are the
 * services of services/, its call edges are the services each one names actions of (an
 * `<owner>Actions.<action>` reference: a `call(…)` site, a route table row, a table of actions
 * called), its event edges are the events each one handles (`<owner>Events.<event>.name`,
 * `onEvent(<owner>Events.<event>, …)` or `settingUpdated` in a handler), both ways. The instance settings mixins (shared/settings) call
 * `instance.settingValue` or `instance.settingView` and handle `instance.setting.updated` for the service that uses one.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MIXINS = new Set(["InstanceSettingsMixin", "InstanceSettingViewsMixin"]);
const SETTING_ACTIONS = new Set(["settingValue", "settingView"]);

const EVENT_REFS: Record<string, Record<string, EventRef<unknown>>> = { authEvents, spacesEvents, instanceEvents, memoEvents };
const SETTING_UPDATED = instanceEvents.settingUpdated.name;

function filesOf(dir: string): string[] {
	return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap(entry => {
		const rel = `${dir}/${entry.name}`;
		if (entry.isDirectory()) return filesOf(rel);
		return entry.name.endsWith(".ts") ? [rel] : [];
	});
}

const SERVICES = readdirSync(path.join(ROOT, "services"), { withFileTypes: true })
	.filter(entry => entry.isDirectory() && filesOf(`services/${entry.name}`).includes(`services/${entry.name}/${entry.name}.service.ts`))
	.map(entry => entry.name)
	.sort();

/** `services/<owner>/<owner>.contract.ts` → owner. */
function contractOwner(specifier: string, from: string): string | undefined {
	const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
	const match = /^services\/([^/]+)\/\1\.contract\.js$/.exec(target);
	if (match) return match[1];
	return target === "shared/settings/instance-settings.contract.js" ? "instance" : undefined;
}

interface Edges {
	calls: Set<string>;
	events: Set<string>;
}

/** The edges of service `svc` found in `file`. */
function edgesOf(svc: string, file: string, edges: Edges): void {
	const source = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
	/** Local names of contract exports → their owner. */
	const owners = new Map<string, string>();
	const visit = (node: ts.Node): void => {
		if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.importClause?.namedBindings && ts.isNamedImports(node.importClause.namedBindings)) {
			const owner = contractOwner(node.moduleSpecifier.text, file);
			for (const element of node.importClause.namedBindings.elements) {
				if (owner !== undefined) owners.set(element.name.text, owner);
				if (MIXINS.has(element.name.text)) owners.set(element.name.text, "instance");
			}
		}
		if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
			const name = node.expression.text;
			const owner = owners.get(name);
			if (owner !== undefined && name.endsWith("Actions")) edges.calls.add(`${svc} --> ${owner}`);
			const event = EVENT_REFS[name]?.[node.name.text];
			// A handler names the event (`…Events.x.name`, or `onEvent(…Events.x, …)`); the owner broadcasts it.
			const named = ts.isPropertyAccessExpression(node.parent) && node.parent.name.text === "name";
			const handled = ts.isCallExpression(node.parent) && ts.isIdentifier(node.parent.expression) && node.parent.expression.text === "onEvent" && node.parent.arguments[0] === node;
			if (owner !== undefined && event !== undefined && (named || handled)) {
				edges.events.add(`${owner} -.->|${event.name}| ${svc}`);
			}
		}
		if (ts.isIdentifier(node) && !ts.isImportSpecifier(node.parent) && owners.has(node.text)) {
			if (SETTING_ACTIONS.has(node.text)) edges.calls.add(`${svc} --> instance`);
			if (node.text === "settingUpdated" && ts.isPropertyAccessExpression(node.parent) && node.parent.name.text === "name") {
				edges.events.add(`instance -.->|${SETTING_UPDATED}| ${svc}`);
			}
			if (MIXINS.has(node.text)) {
				edges.calls.add(`${svc} --> instance`);
				edges.events.add(`instance -.->|${SETTING_UPDATED}| ${svc}`);
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
}

function edgesInCode(): string[] {
	const edges: Edges = { calls: new Set(), events: new Set() };
	for (const svc of SERVICES) for (const file of filesOf(`services/${svc}`)) edgesOf(svc, file, edges);
	const notSelf = (edge: string) => {
		const words = edge.split(/\s+/);
		return words[0] !== words[words.length - 1];
	};
	return [...edges.calls, ...edges.events].filter(notSelf).sort();
}

/** The lines of the first Mermaid block of a Markdown file. */
function mermaidOf(file: string): string[] {
	const text = readFileSync(path.join(ROOT, file), "utf8");
	const block = /```mermaid\n([\s\S]*?)```/.exec(text);
	if (!block) throw new Error(`${file} has no Mermaid block`);
	return (block[1] as string).split("\n").map(line => line.trim()).filter(line => line !== "");
}

describe("the service map", () => {
	const diagram = mermaidOf("ARCHITECTURE.md");
	const inCode = edgesInCode();

	test("is drawn the same in the README", () => {
		expect(mermaidOf("README.md")).toEqual(diagram);
	});

	test("has every service, and every call and event edge of the code, and no other", () => {
		expect(diagram[0]).toBe("flowchart LR");
		const drawn = diagram.slice(1).sort();
		expect(drawn).toEqual(inCode);
		const nodes = new Set(drawn.flatMap(edge => { const words = edge.split(/\s+/); return [words[0], words[words.length - 1]]; }));
		expect([...nodes].sort()).toEqual(SERVICES);
	});

	test("finds edges the way the diagram draws them", () => {
		expect(inCode).toEqual(expect.arrayContaining(["gateway --> ai", "spaces --> memos", "ai --> instance", `spaces -.->|${spacesEvents.memberChanged.name}| memos`]));
		expect(inCode).toContain(`auth -.->|${authEvents.userChanged.name}| instance`);
	});
});
