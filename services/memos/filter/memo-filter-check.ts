import type { ASTNode } from "@marcbachmann/cel-js";
import { ID_PATTERN } from "../../../shared/ids.js";
import { parseTimestamp } from "../../../shared/proto-json.js";
import type { FilterSource } from "../../../shared/cel/filter-source.js";
import { MIRRORED } from "../../../shared/cel/query-parts.js";
import { filterError } from "../../../shared/cel/filter-source.js";
import type { Comparison, FlagField, MemoCondition, TagCondition, TimeValue } from "./memo-condition.js";
import type { TextFunction } from "../../../shared/cel/text-match.js";
import { MAX_TIMESTAMP_SECONDS, MIN_TIMESTAMP_SECONDS, parseDurationSeconds } from "../../../shared/cel/time-values.js";

/**
 * Type-checks a parsed filter against the memo fields of contract 6.2 and turns it into a
 * MemoCondition. Everything outside the grammar of 6.1 is refused with a message naming the
 * construct and where it starts. Chains of `&&`, `||`, `!` and `+`/`-` are walked in loops, so
 * a long filter cannot exhaust the stack; other nesting is bounded before parsing.
 */

type Node = ASTNode;

const FLAG_FIELDS: ReadonlySet<string> = new Set<FlagField>([
	"pinned",
	"has_task_list",
	"has_link",
	"has_code",
	"has_incomplete_tasks",
	"has_location"
]);
const FIELDS: ReadonlySet<string> = new Set([...FLAG_FIELDS, "content", "creator", "created_ts", "updated_ts", "visibility", "space", "tags", "tag"]);
const VISIBILITIES: ReadonlySet<string> = new Set(["PRIVATE", "PROTECTED", "PUBLIC", "SPACE"]);
const TEXT_FUNCTIONS: ReadonlySet<string> = new Set(["contains", "startsWith", "endsWith"]);
const CONVERSIONS: ReadonlySet<string> = new Set(["int", "uint", "double", "string", "bytes", "bool", "dyn", "type", "list", "map"]);
const MACROS: ReadonlySet<string> = new Set(["matches", "all", "exists_one", "map", "filter", "has", "existsOne", "transformList", "transformMap"]);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const ACCESSORS = /^get(FullYear|Month|Date|DayOfMonth|DayOfWeek|DayOfYear|Hours|Minutes|Seconds|Milliseconds)$/;

type Operand =
	| { kind: "field"; name: string; node: Node }
	| { kind: "string"; value: string; node: Node }
	| { kind: "int"; value: bigint; node: Node }
	| { kind: "bool"; value: boolean; node: Node }
	| { kind: "null"; node: Node }
	| { kind: "time"; value: TimeValue; node: Node }
	| { kind: "size"; node: Node }
	| { kind: "list"; items: Operand[]; node: Node };

export interface CheckResult {
	condition: MemoCondition;
	usernames: string[];
}

export function checkMemoFilter(root: Node, source: FilterSource): CheckResult {
	const usernames = new Set<string>();
	const checker = new Checker(source, usernames);
	const condition = checker.condition(root);
	return { condition, usernames: [...usernames] };
}

class Checker {
	constructor(
		private readonly source: FilterSource,
		private readonly usernames: Set<string>
	) {}

	private fail(problem: string, at: number): never {
		throw filterError(problem, this.source, at);
	}

	/** Where a binary operator's symbol is (the node itself starts at its left operand). */
	private operatorAt(node: Node): number {
		const [left, right] = node.args as [Node, Node];
		const between = this.source.cel.slice(left.end, right.start);
		const offset = between.search(/\S/);
		return left.end + (offset < 0 ? 0 : offset);
	}

	condition(node: Node): MemoCondition {
		switch (node.op) {
			case "&&":
			case "||":
				return { kind: node.op === "&&" ? "and" : "or", items: flatten(node, node.op).map(item => this.condition(item)) };
			case "!_": {
				const [inner, negations] = stripNegations(node);
				const item = this.condition(inner);
				return negations % 2 === 1 ? { kind: "not", item } : item;
			}
			case "value":
				if (typeof node.args === "boolean") return { kind: "const", value: node.args };
				return this.fail(`the filter must be a condition, not a ${this.literalKind(node)}`, node.start);
			case "id":
				return this.bareIdentifier(node);
			case "==":
			case "!=":
			case "<":
			case "<=":
			case ">":
			case ">=":
				return this.comparison(node, node.op);
			case "in":
				return this.membership(node);
			case "%":
				if (this.source.colons.has(this.operatorAt(node))) return this.colon(node);
				return this.fail("arithmetic other than time ± duration or seconds is not supported", this.operatorAt(node));
			case "rcall":
				return this.methodCall(node);
			default:
				this.operand(node);
				return this.fail("the filter must be a condition", node.start);
		}
	}

	private bareIdentifier(node: Node): MemoCondition {
		const name = node.args as string;
		if (FLAG_FIELDS.has(name)) return { kind: "flag", field: name as FlagField, value: true };
		if (FIELDS.has(name) || name === "now") return this.fail(`${name} is not a boolean condition`, node.start);
		return this.fail(`unknown identifier ${name}`, node.start);
	}

	private comparison(node: Node, written: Comparison): MemoCondition {
		const [leftNode, rightNode] = node.args as [Node, Node];
		let left = this.operand(leftNode);
		let right = this.operand(rightNode);
		let op = written;
		const at = this.operatorAt(node);
		const isField = (o: Operand) => o.kind === "field" || o.kind === "size";
		if (isField(left) && isField(right)) return this.fail("comparing two fields is not supported", at);
		if (!isField(left) && !isField(right)) return this.fail("a comparison needs a field on one side", at);
		if (isField(right)) {
			[left, right] = [right, left];
			op = MIRRORED[op];
		}
		const ordering = op !== "==" && op !== "!=";
		const negate = (condition: MemoCondition): MemoCondition => (op === "!=" ? { kind: "not", item: condition } : condition);
		if (left.kind === "size") {
			if (right.kind !== "int") return this.fail("size(tags) must be compared with an integer", right.node.start);
			return { kind: "tagCount", op, value: right.value };
		}
		const field = (left as { name: string }).name;
		if (field === "created_ts" || field === "updated_ts") {
			if (right.kind === "int") return { kind: "time", field, op, value: { base: right.value, offset: 0n } };
			if (right.kind === "time") return { kind: "time", field, op, value: right.value };
			return this.fail(`${field} must be compared with a time (seconds, now, timestamp(…))`, right.node.start);
		}
		if (field === "tags") return this.fail('comparing the tag list is not supported; use "x" in tags', at);
		if (field === "tag") return this.fail("tag only supports tag in [ … ]", at);
		if (ordering) return this.fail(`ordering operators are not supported on ${field}`, at);
		if (FLAG_FIELDS.has(field)) {
			if (right.kind !== "bool") return this.fail(`${field} must be compared with true or false`, right.node.start);
			return { kind: "flag", field: field as FlagField, value: op === "==" ? right.value : !right.value };
		}
		if (field === "space") {
			if (right.kind === "null") return negate({ kind: "space", spaceId: null });
			if (op === "!=") return this.fail('space only supports == "spaces/…", == null and != null', at);
			return { kind: "space", spaceId: this.spaceId(right) };
		}
		if (field === "content") return negate({ kind: "content", op: "==", value: this.stringValue(right, "content") });
		if (field === "visibility") return negate({ kind: "visibility", values: [this.visibility(right)] });
		return negate({ kind: "creator", usernames: [this.username(right)] });
	}

	private membership(node: Node): MemoCondition {
		const [leftNode, rightNode] = node.args as [Node, Node];
		const at = this.operatorAt(node);
		if (rightNode.op === "id" && rightNode.args === "tags") {
			const left = this.operand(leftNode);
			if (left.kind !== "string") return this.fail("only a string can be looked up in tags", left.node.start);
			return { kind: "tagIn", values: [left.value] };
		}
		const left = this.operand(leftNode);
		if (left.kind !== "field") return this.fail("in needs a field on its left, or tags on its right", left.node.start);
		const right = this.operand(rightNode);
		if (right.kind !== "list") return this.fail(`${left.name} in needs a list of values [ … ]`, right.node.start);
		switch (left.name) {
			case "tag":
				return { kind: "tagIn", values: right.items.map(item => this.stringValue(item, "tag")) };
			case "content":
				return { kind: "contentIn", values: right.items.map(item => this.stringValue(item, "content")) };
			case "visibility":
				return { kind: "visibility", values: right.items.map(item => this.visibility(item)) };
			case "creator":
				return { kind: "creator", usernames: right.items.map(item => this.username(item)) };
			default:
				return this.fail(`in is not supported on ${left.name}`, at);
		}
	}

	private colon(node: Node): MemoCondition {
		const [leftNode, rightNode] = node.args as [Node, Node];
		const [field, negations] = stripNegations(leftNode);
		if (field.op !== "id" || field.args !== "content") return this.fail(": is only supported on content", field.start);
		const item: MemoCondition = { kind: "contentText", fn: "contains", value: this.stringValue(this.operand(rightNode), "content") };
		return negations % 2 === 1 ? { kind: "not", item } : item;
	}

	private methodCall(node: Node): MemoCondition {
		const [name, receiver, args] = node.args as [string, Node, Node[]];
		this.refuseUnsupportedMethod(name, receiver, node);
		if (TEXT_FUNCTIONS.has(name)) {
			if (receiver.op !== "id" || receiver.args !== "content") {
				if (receiver.op === "id" && FIELDS.has(receiver.args as string)) return this.fail(`${name} is only supported on content`, node.start);
				this.operand(receiver);
				return this.fail(`${name} is only supported on content`, node.start);
			}
			return { kind: "contentText", fn: name as TextFunction, value: this.textArgument(name, args, node) };
		}
		if (name === "exists") {
			if (receiver.op !== "id" || receiver.args !== "tags") return this.fail("exists is only supported on tags", node.start);
			if (args.length !== 2 || args[0].op !== "id") return this.fail("tags.exists needs a variable and a condition: tags.exists(t, …)", node.start);
			return { kind: "tagExists", element: this.tagCondition(args[1], args[0].args as string) };
		}
		return this.fail(`unsupported function ${name}`, node.start);
	}

	private refuseUnsupportedMethod(name: string, receiver: Node, node: Node): void {
		if (receiver.op === "id" && receiver.args === "sets") this.fail(`sets.${name} is not supported`, node.start);
		if (MACROS.has(name)) this.fail(`${name} is not supported`, node.start);
		if (ACCESSORS.test(name)) this.fail(`timestamp accessors such as ${name}() are not supported`, node.start);
	}

	private textArgument(name: string, args: Node[], node: Node): string {
		if (args.length !== 1) return this.fail(`${name} takes one string`, node.start);
		return this.stringValue(this.operand(args[0]), name);
	}

	private tagCondition(node: Node, variable: string): TagCondition {
		switch (node.op) {
			case "&&":
			case "||":
				return { kind: node.op === "&&" ? "and" : "or", items: flatten(node, node.op).map(item => this.tagCondition(item, variable)) };
			case "!_": {
				const [inner, negations] = stripNegations(node);
				const item = this.tagCondition(inner, variable);
				return negations % 2 === 1 ? { kind: "not", item } : item;
			}
			case "value":
				if (typeof node.args === "boolean") return { kind: "const", value: node.args };
				break;
			case "==":
			case "!=": {
				const [a, b] = node.args as [Node, Node];
				const [element, other] = isVariable(a, variable) ? [a, b] : [b, a];
				if (!isVariable(element, variable)) break;
				const value = this.stringValue(this.operand(other), variable);
				const item: TagCondition = { kind: "in", values: [value] };
				return node.op === "!=" ? { kind: "not", item } : item;
			}
			case "<":
			case "<=":
			case ">":
			case ">=":
				return this.fail("ordering operators are not supported on tags", this.operatorAt(node));
			case "in": {
				const [element, list] = node.args as [Node, Node];
				if (!isVariable(element, variable)) break;
				const values = this.operand(list);
				if (values.kind !== "list") return this.fail(`${variable} in needs a list of strings [ … ]`, list.start);
				return { kind: "in", values: values.items.map(item => this.stringValue(item, variable)) };
			}
			case "rcall": {
				const [name, receiver, args] = node.args as [string, Node, Node[]];
				if (name === "exists") return this.fail("nested exists is not supported", node.start);
				this.refuseUnsupportedMethod(name, receiver, node);
				if (TEXT_FUNCTIONS.has(name) && isVariable(receiver, variable)) {
					return { kind: "text", fn: name as TextFunction, value: this.textArgument(name, args, node) };
				}
				break;
			}
			case "id":
				if (node.args === variable) return this.fail(`${variable} is a string, not a condition`, node.start);
				break;
		}
		return this.fail(`inside tags.exists only tests of ${variable} (==, !=, in, contains, startsWith, endsWith) are supported`, node.start);
	}

	/** A value position: a field, a literal, a list of literals, a time or size(tags). */
	private operand(node: Node): Operand {
		switch (node.op) {
			case "id": {
				const name = node.args as string;
				if (name === "now") return { kind: "time", value: { base: "now", offset: 0n }, node };
				if (FIELDS.has(name)) return { kind: "field", name, node };
				return this.fail(`unknown identifier ${name}`, node.start);
			}
			case "value":
				return this.literal(node);
			case "-_": {
				const value = this.operand(node.args as Node);
				if (value.kind === "int") return { kind: "int", value: -value.value, node };
				return this.fail("arithmetic other than time ± duration or seconds is not supported", node.start);
			}
			case "list":
				return { kind: "list", items: (node.args as Node[]).map(item => this.listItem(item)), node };
			case "call":
				return this.functionValue(node);
			case "+":
			case "-":
				return { kind: "time", value: this.timeArithmetic(node), node };
			case "rcall": {
				const [name, receiver] = node.args as [string, Node, Node[]];
				this.refuseUnsupportedMethod(name, receiver, node);
				if (name === "exists") return this.fail("exists is a condition, not a value", node.start);
				return this.fail(`unsupported function ${name}`, node.start);
			}
			case "?:":
				return this.fail("the ternary operator is not supported", node.start);
			case "*":
			case "/":
			case "%":
				return this.fail("arithmetic other than time ± duration or seconds is not supported", this.operatorAt(node));
			case ".":
			case ".?": {
				const [object] = node.args as [Node, string];
				if (object.op === "id" && !FIELDS.has(object.args as string)) return this.fail(`unknown identifier ${object.args as string}`, object.start);
				return this.fail("field selection is not supported", node.pos);
			}
			case "[]":
			case "[?]":
				return this.fail("indexing is not supported", node.start);
			case "map":
				return this.fail("map literals are not supported", node.start);
			default:
				return this.fail("a condition cannot be used as a value", node.start);
		}
	}

	private listItem(node: Node): Operand {
		const item = this.operand(node);
		if (item.kind === "string" || item.kind === "int" || item.kind === "bool" || item.kind === "null") return item;
		return this.fail("list elements must be literals", node.start);
	}

	private literal(node: Node): Operand {
		const value = node.args;
		if (typeof value === "string") {
			const written = this.source.cel.slice(node.start, node.end);
			if (/^[rR]/.test(written)) return this.fail("raw string literals are not supported", node.start);
			if (/^("""|''')/.test(written)) return this.fail("triple-quoted string literals are not supported", node.start);
			if (LONE_SURROGATE.test(value)) return this.fail("string literal is not valid Unicode", node.start);
			return { kind: "string", value, node };
		}
		if (typeof value === "bigint") return { kind: "int", value, node };
		if (typeof value === "boolean") return { kind: "bool", value, node };
		if (value === null) return { kind: "null", node };
		if (value instanceof Uint8Array) return this.fail("bytes literals are not supported", node.start);
		if (typeof value === "number") return this.fail("floating-point literals are not supported", node.start);
		return this.fail("unsigned integer literals are not supported", node.start);
	}

	private literalKind(node: Node): string {
		const literal = this.literal(node);
		return literal.kind === "int" ? "number" : literal.kind;
	}

	private functionValue(node: Node): Operand {
		const [name, args] = node.args as [string, Node[]];
		if (name === "now") {
			if (args.length !== 0) return this.fail("now() takes no arguments", node.start);
			return { kind: "time", value: { base: "now", offset: 0n }, node };
		}
		if (name === "timestamp") return { kind: "time", value: { base: this.timestampSeconds(args, node), offset: 0n }, node };
		if (name === "size") {
			if (args.length !== 1 || args[0].op !== "id" || args[0].args !== "tags") return this.fail("size is only supported as size(tags)", node.start);
			return { kind: "size", node };
		}
		if (name === "duration") return this.fail("a duration can only be added to or subtracted from a time", node.start);
		if (CONVERSIONS.has(name)) return this.fail(`type conversions such as ${name}() are not supported`, node.start);
		if (MACROS.has(name)) return this.fail(`${name} is not supported`, node.start);
		return this.fail(`unsupported function ${name}`, node.start);
	}

	private timestampSeconds(args: Node[], node: Node): bigint {
		const argument = args.length === 1 ? this.operand(args[0]) : null;
		if (argument?.kind === "int") {
			if (argument.value < MIN_TIMESTAMP_SECONDS || argument.value > MAX_TIMESTAMP_SECONDS) return this.fail("timestamp out of range", node.start);
			return argument.value;
		}
		if (argument?.kind === "string") {
			try {
				return BigInt(Math.floor(parseTimestamp(argument.value, "timestamp") / 1000));
			} catch {
				return this.fail(`timestamp needs an RFC 3339 time such as "2025-01-01T00:00:00Z", not ${JSON.stringify(argument.value)}`, args[0].start);
			}
		}
		return this.fail("timestamp takes one RFC 3339 string or Unix seconds", node.start);
	}

	/** `tatom (("+" | "-") (duration(STRING) | INT))*`, walked down its left spine in a loop. */
	private timeArithmetic(node: Node): TimeValue {
		const steps: { sign: bigint; node: Node; at: number }[] = [];
		let current = node;
		while (current.op === "+" || current.op === "-") {
			const [left, right] = current.args as [Node, Node];
			steps.push({ sign: current.op === "+" ? 1n : -1n, node: right, at: this.operatorAt(current) });
			current = left;
		}
		const base = this.operand(current);
		if (base.kind !== "time" || base.value.offset !== 0n) {
			return this.fail("arithmetic other than time ± duration or seconds is not supported", steps.at(-1)?.at ?? node.start);
		}
		let offset = 0n;
		for (const step of steps) offset += step.sign * this.secondsOffset(step.node, step.at);
		return { base: base.value.base, offset };
	}

	private secondsOffset(node: Node, at: number): bigint {
		if (node.op === "call" && (node.args as [string, Node[]])[0] === "duration") {
			const [, args] = node.args as [string, Node[]];
			const argument = args.length === 1 ? this.operand(args[0]) : null;
			if (argument?.kind !== "string") return this.fail('duration takes one string such as "1h30m"', node.start);
			const seconds = parseDurationSeconds(argument.value);
			if (seconds === null) return this.fail(`invalid duration ${JSON.stringify(argument.value)}`, args[0].start);
			return seconds;
		}
		const value = this.operand(node);
		if (value.kind === "int") return value.value;
		return this.fail("arithmetic other than time ± duration or seconds is not supported", at);
	}

	private stringValue(operand: Operand, field: string): string {
		if (operand.kind === "string") return operand.value;
		return this.fail(`${field} must be compared with a string`, operand.node.start);
	}

	private visibility(operand: Operand): string {
		if (operand.kind === "string" && VISIBILITIES.has(operand.value)) return operand.value;
		return this.fail("visibility must be one of PRIVATE, PROTECTED, PUBLIC, SPACE", operand.node.start);
	}

	private username(operand: Operand): string {
		const name = operand.kind === "string" ? /^users\/(.*)$/s.exec(operand.value) : null;
		if (name === null || !ID_PATTERN.test(name[1])) return this.fail('creator must be compared with a user name "users/{username}"', operand.node.start);
		this.usernames.add(name[1]);
		return name[1];
	}

	private spaceId(operand: Operand): string {
		const name = operand.kind === "string" ? /^spaces\/(.*)$/s.exec(operand.value) : null;
		if (name === null || !ID_PATTERN.test(name[1])) return this.fail('space must be compared with "spaces/{id}" or null', operand.node.start);
		return name[1];
	}
}

function isVariable(node: Node, variable: string): boolean {
	return node.op === "id" && node.args === variable;
}

/** The operands of a chain of one logical operator, in source order, without recursion. */
function flatten(node: Node, op: "&&" | "||"): Node[] {
	const items: Node[] = [];
	const pending: Node[] = [node];
	while (pending.length > 0) {
		const current = pending.pop() as Node;
		if (current.op === op) {
			const [left, right] = current.args as [Node, Node];
			pending.push(right, left);
		} else items.push(current);
	}
	return items;
}

function stripNegations(node: Node): [Node, number] {
	let current = node;
	let count = 0;
	while (current.op === "!_") {
		current = current.args as Node;
		count++;
	}
	return [current, count];
}
