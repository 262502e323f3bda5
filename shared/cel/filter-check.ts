import type { ASTNode } from "@marcbachmann/cel-js";
import { ID_PATTERN } from "../ids.js";
import { parseTimestamp } from "../proto-json.js";
import { negated, type Condition } from "./condition.js";
import { filterError, type FilterSource } from "./filter-source.js";
import { MIRRORED, type Comparison } from "./query-parts.js";
import type { TextFunction } from "./text-match.js";
import { MAX_TIMESTAMP_SECONDS, MIN_TIMESTAMP_SECONDS, parseDurationSeconds, type TimeValue } from "./time-values.js";

/**
 * The type checker of the grammar of contract 6.1, shared by the memo and attachment filters:
 * it walks a parsed filter, refuses everything outside the grammar with a message naming the
 * construct and where it starts, and leaves to each language (a subclass) its fields and what
 * a comparison, an `in` or a text test on one of them means. Chains of `&&`, `||`, `!` and
 * `+`/`-` are walked in loops, so a long filter cannot exhaust the stack; other nesting is
 * bounded before parsing.
 */

export type Node = ASTNode;

export type Literal =
	| { kind: "string"; value: string; node: Node }
	| { kind: "int"; value: bigint; node: Node }
	| { kind: "bool"; value: boolean; node: Node }
	| { kind: "null"; node: Node };

/** A field, or a value a language computes from one (`size(tags)`), compared like a field. */
export interface FieldOperand {
	kind: "field";
	name: string;
	node: Node;
}

/** A value position: a field, a literal, a list of literals or a time. */
export type Operand = FieldOperand | Literal | { kind: "time"; value: TimeValue; node: Node } | { kind: "list"; items: Literal[]; node: Node };

export interface FieldTable {
	/** Every field a filter of the language may name. */
	fields: ReadonlySet<string>;
	/** The string fields that `contains`, `startsWith`, `endsWith` and `:` search. */
	textFields: readonly string[];
}

const TEXT_FUNCTIONS: ReadonlySet<string> = new Set(["contains", "startsWith", "endsWith"]);
const CONVERSIONS: ReadonlySet<string> = new Set(["int", "uint", "double", "string", "bytes", "bool", "dyn", "type", "list", "map"]);
const MACROS: ReadonlySet<string> = new Set(["matches", "all", "exists_one", "map", "filter", "has", "existsOne", "transformList", "transformMap"]);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const ACCESSORS = /^get(FullYear|Month|Date|DayOfMonth|DayOfWeek|DayOfYear|Hours|Minutes|Seconds|Milliseconds)$/;
const ARITHMETIC = "arithmetic other than time ± duration or seconds is not supported";
const NOW: TimeValue = { base: "now", offset: 0n };

export abstract class FilterChecker<P extends { kind: string }> {
	/** The message for an `in` without a field on its left. */
	protected readonly inWithoutField: string = "in needs a field on its left";

	constructor(
		protected readonly source: FilterSource,
		private readonly table: FieldTable
	) {}

	/** What `field OP value` means (the operands already turned so that the field is on the left). */
	protected abstract fieldComparison(field: FieldOperand, op: Comparison, value: Operand, at: number): Condition<P>;

	/** What `field in [values]` means; undefined when the field has no `in`. */
	protected abstract fieldIn(field: string, values: Literal[]): Condition<P> | undefined;

	/** What `field.fn(value)` and `field:value` mean, for a field of the table's text fields. */
	protected abstract textTest(field: string, fn: TextFunction, value: string): Condition<P>;

	fail(problem: string, at: number): never {
		throw filterError(problem, this.source, at);
	}

	/** Where a binary operator's symbol is (the node itself starts at its left operand). */
	protected operatorAt(node: Node): number {
		const [left, right] = node.args as [Node, Node];
		const offset = this.source.cel.slice(left.end, right.start).search(/\S/);
		return left.end + (offset < 0 ? 0 : offset);
	}

	condition(node: Node): Condition<P> {
		return walkConnectives(node, predicate => this.predicate(predicate));
	}

	private predicate(node: Node): Condition<P> {
		switch (node.op) {
			case "value":
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
				return this.fail(ARITHMETIC, this.operatorAt(node));
			case "rcall":
				return this.methodCall(node);
			default:
				this.operand(node);
				return this.fail("the filter must be a condition", node.start);
		}
	}

	/** A field named alone as a condition: none is boolean unless a language says so. */
	protected bareIdentifier(node: Node): Condition<P> {
		const name = node.args as string;
		if (this.table.fields.has(name) || name === "now") return this.fail(`${name} is not a boolean condition`, node.start);
		return this.fail(`unknown identifier ${name}`, node.start);
	}

	private comparison(node: Node, written: Comparison): Condition<P> {
		const [leftNode, rightNode] = node.args as [Node, Node];
		let left = this.operand(leftNode);
		let right = this.operand(rightNode);
		let op = written;
		const at = this.operatorAt(node);
		if (left.kind === "field" && right.kind === "field") return this.fail("comparing two fields is not supported", at);
		if (right.kind === "field") {
			[left, right] = [right, left];
			op = MIRRORED[op];
		}
		if (left.kind !== "field") return this.fail("a comparison needs a field on one side", at);
		return this.fieldComparison(left, op, right, at);
	}

	/** `FIELD in [ … ]`; a computed value such as size(tags) is not a field here. */
	protected membership(node: Node): Condition<P> {
		const [leftNode, rightNode] = node.args as [Node, Node];
		const at = this.operatorAt(node);
		const left = this.operand(leftNode);
		if (left.kind !== "field" || !this.table.fields.has(left.name)) return this.fail(this.inWithoutField, left.node.start);
		const right = this.operand(rightNode);
		if (right.kind !== "list") return this.fail(`${left.name} in needs a list of values [ … ]`, right.node.start);
		return this.fieldIn(left.name, right.items) ?? this.fail(`in is not supported on ${left.name}`, at);
	}

	/** `FIELD:STRING`; `!` binds tighter than the `%` it is parsed as, so `!content:"x"` is `!(content:"x")`. */
	private colon(node: Node): Condition<P> {
		const [leftNode, rightNode] = node.args as [Node, Node];
		const [field, negations] = stripNegations(leftNode);
		if (field.op !== "id" || !this.table.textFields.includes(field.args as string)) return this.fail(`: is only supported on ${this.textFieldList()}`, field.start);
		const name = field.args as string;
		return negated(this.textTest(name, "contains", this.stringValue(this.operand(rightNode), name)), negations % 2 === 1);
	}

	private methodCall(node: Node): Condition<P> {
		const [name, receiver, args] = node.args as [string, Node, Node[]];
		this.refuseUnsupportedMethod(name, receiver, node);
		if (!isTextFunction(name)) return this.method(name, receiver, args, node);
		if (receiver.op !== "id" || !this.table.textFields.includes(receiver.args as string)) {
			if (receiver.op !== "id" || !this.table.fields.has(receiver.args as string)) this.operand(receiver);
			return this.fail(`${name} is only supported on ${this.textFieldList()}`, node.start);
		}
		return this.textTest(receiver.args as string, name, this.textArgument(name, args, node));
	}

	/** A method call other than the text functions, as a condition. */
	protected method(name: string, _receiver: Node, _args: Node[], node: Node): Condition<P> {
		return this.fail(`unsupported function ${name}`, node.start);
	}

	protected refuseUnsupportedMethod(name: string, receiver: Node, node: Node): void {
		if (receiver.op === "id" && receiver.args === "sets") this.fail(`sets.${name} is not supported`, node.start);
		if (MACROS.has(name)) this.fail(`${name} is not supported`, node.start);
		if (ACCESSORS.test(name)) this.fail(`timestamp accessors such as ${name}() are not supported`, node.start);
	}

	/** The one string argument of a text function. */
	protected textArgument(name: string, args: Node[], node: Node): string {
		if (args.length !== 1) return this.fail(`${name} takes one string`, node.start);
		return this.stringValue(this.operand(args[0]), name);
	}

	private textFieldList(): string {
		return this.table.textFields.join(" and ");
	}

	/** A value position: a field, a literal, a list of literals or a time. */
	protected operand(node: Node): Operand {
		switch (node.op) {
			case "id": {
				const name = node.args as string;
				if (name === "now") return { kind: "time", value: NOW, node };
				if (this.table.fields.has(name)) return { kind: "field", name, node };
				return this.fail(`unknown identifier ${name}`, node.start);
			}
			case "value":
				return this.literal(node);
			case "-_": {
				const value = this.operand(node.args as Node);
				if (value.kind === "int") return { kind: "int", value: -value.value, node };
				return this.fail(ARITHMETIC, node.start);
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
				return this.fail(ARITHMETIC, this.operatorAt(node));
			case ".":
			case ".?": {
				const [object] = node.args as [Node, string];
				if (object.op === "id" && !this.table.fields.has(object.args as string)) return this.fail(`unknown identifier ${object.args as string}`, object.start);
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

	private listItem(node: Node): Literal {
		const item = this.operand(node);
		if (item.kind === "string" || item.kind === "int" || item.kind === "bool" || item.kind === "null") return item;
		return this.fail("list elements must be literals", node.start);
	}

	private literal(node: Node): Literal {
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

	/** A global function call as a value: `now()` and `timestamp(…)`. */
	protected functionValue(node: Node): Operand {
		const [name, args] = node.args as [string, Node[]];
		if (name === "now") {
			if (args.length !== 0) return this.fail("now() takes no arguments", node.start);
			return { kind: "time", value: NOW, node };
		}
		if (name === "timestamp") return { kind: "time", value: { base: this.timestampSeconds(args, node), offset: 0n }, node };
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
		if (base.kind !== "time" || base.value.offset !== 0n) return this.fail(ARITHMETIC, steps.at(-1)?.at ?? node.start);
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
		return this.fail(ARITHMETIC, at);
	}

	protected stringValue(operand: Operand, field: string): string {
		if (operand.kind === "string") return operand.value;
		return this.fail(`${field} must be compared with a string`, operand.node.start);
	}

	/** The value a time field is compared with: Unix seconds or a time. */
	protected timeValue(operand: Operand, field: string): TimeValue {
		if (operand.kind === "int") return { base: operand.value, offset: 0n };
		if (operand.kind === "time") return operand.value;
		return this.fail(`${field} must be compared with a time (seconds, now, timestamp(…))`, operand.node.start);
	}

	/** The id of a `"spaces/{id}"` name. */
	protected spaceId(operand: Operand): string {
		return resourceId(operand, "spaces") ?? this.fail('space must be compared with "spaces/{id}" or null', operand.node.start);
	}
}

/** The id in a `"{collection}/{id}"` string; null when the operand is not one. */
export function resourceId(operand: Operand, collection: string): string | null {
	if (operand.kind !== "string" || !operand.value.startsWith(`${collection}/`)) return null;
	const id = operand.value.slice(collection.length + 1);
	return ID_PATTERN.test(id) ? id : null;
}

export function isTextFunction(name: string): name is TextFunction {
	return TEXT_FUNCTIONS.has(name);
}

export function isIdentifier(node: Node, name: string): boolean {
	return node.op === "id" && node.args === name;
}

/** `&&`, `||`, `!` and `true`/`false` around the predicates that `predicate` checks. */
export function walkConnectives<P>(node: Node, predicate: (node: Node) => Condition<P>): Condition<P> {
	const walk = (current: Node): Condition<P> => {
		switch (current.op) {
			case "&&":
			case "||":
				return { kind: current.op === "&&" ? "and" : "or", items: flatten(current, current.op).map(walk) };
			case "!_": {
				const [inner, negations] = stripNegations(current);
				return negated(walk(inner), negations % 2 === 1);
			}
			case "value":
				if (typeof current.args === "boolean") return { kind: "const", value: current.args };
		}
		return predicate(current);
	};
	return walk(node);
}

/** The operands of a chain of one logical operator, in source order, without recursion. */
export function flatten(node: Node, op: "&&" | "||"): Node[] {
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
