import type { ASTNode } from "@marcbachmann/cel-js";
import { filterError, type FilterSource } from "../../../shared/cel/filter-source.js";
import { MIRRORED, type Comparison } from "../../../shared/cel/query-parts.js";
import type { TextFunction } from "../../../shared/cel/text-match.js";
import { MAX_TIMESTAMP_SECONDS, MIN_TIMESTAMP_SECONDS, parseDurationSeconds, type TimeValue } from "../../../shared/cel/time-values.js";
import { ID_PATTERN } from "../../../shared/ids.js";
import { parseTimestamp } from "../../../shared/proto-json.js";
import type { AttachmentCondition, CheckedAttachmentFilter, StringField } from "./attachment-condition.js";

/**
 * Type-checks a parsed attachment filter against the fields of contract 6.3 and turns it into
 * an AttachmentCondition. The `space` term is taken out: it must be a top-level conjunct,
 * at most once, never negated, and only `== "spaces/…"` or `== null`.
 */

type Node = ASTNode;

const FIELDS: ReadonlySet<string> = new Set(["filename", "mime_type", "create_time", "memo_id", "space"]);
const TEXT_FUNCTIONS: ReadonlySet<string> = new Set(["contains", "startsWith", "endsWith"]);

type Operand =
	| { kind: "field"; name: string; node: Node }
	| { kind: "string"; value: string; node: Node }
	| { kind: "int"; value: bigint; node: Node }
	| { kind: "bool"; value: boolean; node: Node }
	| { kind: "null"; node: Node }
	| { kind: "time"; value: TimeValue; node: Node }
	| { kind: "list"; items: Operand[]; node: Node };

export function checkAttachmentFilter(root: Node, source: FilterSource): CheckedAttachmentFilter {
	const checker = new Checker(source);
	let spaceId: string | null | undefined;
	const items: AttachmentCondition[] = [];
	for (const conjunct of flatten(root, "&&")) {
		const space = checker.spaceTerm(conjunct);
		if (space === undefined) {
			items.push(checker.condition(conjunct));
			continue;
		}
		if (spaceId !== undefined) checker.fail("at most one space term is allowed", conjunct.start);
		spaceId = space;
	}
	const condition: AttachmentCondition = items.length === 1 ? items[0] : { kind: "and", items };
	return { condition, spaceId };
}

class Checker {
	constructor(private readonly source: FilterSource) {}

	fail(problem: string, at: number): never {
		throw filterError(problem, this.source, at);
	}

	private operatorAt(node: Node): number {
		const [left, right] = node.args as [Node, Node];
		const offset = this.source.cel.slice(left.end, right.start).search(/\S/);
		return left.end + (offset < 0 ? 0 : offset);
	}

	/** The space id of a top-level `space == …` term; undefined when the node is not one. */
	spaceTerm(node: Node): string | null | undefined {
		if (node.op !== "==") return undefined;
		const [a, b] = node.args as [Node, Node];
		const [field, value] = isField(a, "space") ? [a, b] : isField(b, "space") ? [b, a] : [null, null];
		if (field === null || value === null) return undefined;
		const operand = this.operand(value);
		if (operand.kind === "null") return null;
		const name = operand.kind === "string" ? /^spaces\/(.*)$/s.exec(operand.value) : null;
		if (name === null || !ID_PATTERN.test(name[1])) return this.fail('space must be compared with "spaces/{id}" or null', value.start);
		return name[1];
	}

	condition(node: Node): AttachmentCondition {
		switch (node.op) {
			case "&&":
			case "||":
				return { kind: node.op === "&&" ? "and" : "or", items: flatten(node, node.op).map(item => this.condition(item)) };
			case "!_": {
				let inner: Node = node;
				let negations = 0;
				while (inner.op === "!_") {
					inner = inner.args as Node;
					negations++;
				}
				const item = this.condition(inner);
				return negations % 2 === 1 ? { kind: "not", item } : item;
			}
			case "value":
				if (typeof node.args === "boolean") return { kind: "const", value: node.args };
				return this.fail("the filter must be a condition", node.start);
			case "id": {
				const name = node.args as string;
				if (FIELDS.has(name)) return this.fail(`${name} is not a boolean condition`, node.start);
				return this.fail(`unknown identifier ${name}`, node.start);
			}
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

	private comparison(node: Node, written: Comparison): AttachmentCondition {
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
		switch (left.name) {
			case "filename":
			case "mime_type":
				return { kind: "string", field: left.name, op, value: this.stringValue(right, left.name) };
			case "create_time":
				if (right.kind === "int") return { kind: "time", op, value: { base: right.value, offset: 0n } };
				if (right.kind === "time") return { kind: "time", op, value: right.value };
				return this.fail("create_time must be compared with a time (seconds, now, timestamp(…))", right.node.start);
			case "memo_id": {
				if (op !== "==" && op !== "!=") return this.fail("ordering operators are not supported on memo_id", at);
				const item: AttachmentCondition = { kind: "memo", memoId: right.kind === "null" ? null : this.memoId(right) };
				return op === "!=" ? { kind: "not", item } : item;
			}
			default:
				return this.fail('space may only appear once, as a top-level term space == "spaces/…" or space == null', left.node.start);
		}
	}

	private membership(node: Node): AttachmentCondition {
		const [leftNode, rightNode] = node.args as [Node, Node];
		const left = this.operand(leftNode);
		if (left.kind !== "field") return this.fail("in needs a field on its left", left.node.start);
		const right = this.operand(rightNode);
		if (right.kind !== "list") return this.fail(`${left.name} in needs a list of values [ … ]`, right.node.start);
		switch (left.name) {
			case "filename":
			case "mime_type":
				return { kind: "stringIn", field: left.name, values: right.items.map(item => this.stringValue(item, left.name)) };
			case "memo_id":
				return { kind: "memoIn", memoIds: right.items.map(item => this.memoId(item)) };
			default:
				return this.fail(`in is not supported on ${left.name}`, this.operatorAt(node));
		}
	}

	private colon(node: Node): AttachmentCondition {
		const [leftNode, rightNode] = node.args as [Node, Node];
		const field = this.stringField(leftNode, ":");
		return { kind: "text", field, fn: "contains", value: this.stringValue(this.operand(rightNode), field) };
	}

	private methodCall(node: Node): AttachmentCondition {
		const [name, receiver, args] = node.args as [string, Node, Node[]];
		if (!TEXT_FUNCTIONS.has(name)) return this.fail(`unsupported function ${name}`, node.start);
		const field = this.stringField(receiver, name);
		if (args.length !== 1) return this.fail(`${name} takes one string`, node.start);
		return { kind: "text", field, fn: name as TextFunction, value: this.stringValue(this.operand(args[0]), name) };
	}

	private stringField(node: Node, what: string): StringField {
		if (isField(node, "filename") || isField(node, "mime_type")) return node.args as StringField;
		return this.fail(`${what} is only supported on filename and mime_type`, node.start);
	}

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
				return {
					kind: "list",
					items: (node.args as Node[]).map(item => {
						const literal = this.operand(item);
						if (literal.kind === "field" || literal.kind === "list" || literal.kind === "time") return this.fail("list elements must be literals", item.start);
						return literal;
					}),
					node
				};
			case "call":
				return this.functionValue(node);
			case "+":
			case "-":
				return { kind: "time", value: this.timeArithmetic(node), node };
			default:
				return this.fail("unsupported expression", node.start);
		}
	}

	private literal(node: Node): Operand {
		const value = node.args;
		if (typeof value === "string") {
			const written = this.source.cel.slice(node.start, node.end);
			if (/^[rR]/.test(written)) return this.fail("raw string literals are not supported", node.start);
			if (/^("""|''')/.test(written)) return this.fail("triple-quoted string literals are not supported", node.start);
			return { kind: "string", value, node };
		}
		if (typeof value === "bigint") return { kind: "int", value, node };
		if (typeof value === "boolean") return { kind: "bool", value, node };
		if (value === null) return { kind: "null", node };
		if (value instanceof Uint8Array) return this.fail("bytes literals are not supported", node.start);
		return this.fail("only string, integer, boolean and null literals are supported", node.start);
	}

	private functionValue(node: Node): Operand {
		const [name, args] = node.args as [string, Node[]];
		if (name === "now") {
			if (args.length !== 0) return this.fail("now() takes no arguments", node.start);
			return { kind: "time", value: { base: "now", offset: 0n }, node };
		}
		if (name !== "timestamp") return this.fail(`unsupported function ${name}`, node.start);
		const argument = args.length === 1 ? this.operand(args[0]) : null;
		if (argument?.kind === "int") {
			if (argument.value < MIN_TIMESTAMP_SECONDS || argument.value > MAX_TIMESTAMP_SECONDS) return this.fail("timestamp out of range", node.start);
			return { kind: "time", value: { base: argument.value, offset: 0n }, node };
		}
		if (argument?.kind === "string") {
			try {
				return { kind: "time", value: { base: BigInt(Math.floor(parseTimestamp(argument.value, "timestamp") / 1000)), offset: 0n }, node };
			} catch {
				return this.fail(`timestamp needs an RFC 3339 time, not ${JSON.stringify(argument.value)}`, args[0].start);
			}
		}
		return this.fail("timestamp takes one RFC 3339 string or Unix seconds", node.start);
	}

	/** `tatom (("+" | "-") (duration(STRING) | INT))*`, walked down its left spine. */
	private timeArithmetic(node: Node): TimeValue {
		const steps: { sign: bigint; node: Node }[] = [];
		let current = node;
		while (current.op === "+" || current.op === "-") {
			const [left, right] = current.args as [Node, Node];
			steps.push({ sign: current.op === "+" ? 1n : -1n, node: right });
			current = left;
		}
		const base = this.operand(current);
		if (base.kind !== "time") return this.fail("arithmetic other than time ± duration or seconds is not supported", node.start);
		let offset = 0n;
		for (const step of steps) offset += step.sign * this.secondsOffset(step.node);
		return { base: base.value.base, offset };
	}

	private secondsOffset(node: Node): bigint {
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
		return this.fail("arithmetic other than time ± duration or seconds is not supported", node.start);
	}

	private stringValue(operand: Operand, field: string): string {
		if (operand.kind === "string") return operand.value;
		return this.fail(`${field} must be compared with a string`, operand.node.start);
	}

	/** A bare memo id or a full `memos/{id}` name. */
	private memoId(operand: Operand): string {
		if (operand.kind !== "string") return this.fail("memo_id must be compared with a memo id string or null", operand.node.start);
		return operand.value.startsWith("memos/") ? operand.value.slice("memos/".length) : operand.value;
	}
}

function isField(node: Node, name: string): boolean {
	return node.op === "id" && node.args === name;
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
