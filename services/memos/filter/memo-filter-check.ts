import { negated } from "../../../shared/cel/condition.js";
import type { FilterSource } from "../../../shared/cel/filter-source.js";
import {
	FilterChecker,
	isIdentifier,
	isTextFunction,
	resourceId,
	walkConnectives,
	type FieldOperand,
	type Literal,
	type Node,
	type Operand
} from "../../../shared/cel/filter-check.js";
import type { TextFunction } from "../../../shared/cel/text-match.js";
import type { Comparison, FlagField, MemoCondition, MemoPredicate, TagCondition } from "./memo-condition.js";

/**
 * Type-checks a parsed filter against the memo fields of contract 6.2 and turns it into a
 * MemoCondition. The grammar is checked by the shared FilterChecker; this file states the memo
 * fields, and the rules of the tag list (`"x" in tags`, `tag in […]`, `tags.exists`, `size(tags)`).
 */

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
const TAG_COUNT = "size(tags)";

export interface CheckResult {
	condition: MemoCondition;
	usernames: string[];
}

export function checkMemoFilter(root: Node, source: FilterSource): CheckResult {
	const usernames = new Set<string>();
	const condition = new MemoChecker(source, usernames).condition(root);
	return { condition, usernames: [...usernames] };
}

class MemoChecker extends FilterChecker<MemoPredicate> {
	protected override readonly inWithoutField = "in needs a field on its left, or tags on its right";

	constructor(
		source: FilterSource,
		private readonly usernames: Set<string>
	) {
		super(source, { fields: FIELDS, textFields: ["content"] });
	}

	protected override bareIdentifier(node: Node): MemoCondition {
		const name = node.args as string;
		if (FLAG_FIELDS.has(name)) return { kind: "flag", field: name as FlagField, value: true };
		return super.bareIdentifier(node);
	}

	protected fieldComparison(left: FieldOperand, op: Comparison, right: Operand, at: number): MemoCondition {
		const field = left.name;
		const negate = (condition: MemoCondition) => negated(condition, op === "!=");
		if (field === TAG_COUNT) {
			if (right.kind !== "int") return this.fail("size(tags) must be compared with an integer", right.node.start);
			return { kind: "tagCount", op, value: right.value };
		}
		if (field === "created_ts" || field === "updated_ts") return { kind: "time", field, op, value: this.timeValue(right, field) };
		if (field === "tags") return this.fail('comparing the tag list is not supported; use "x" in tags', at);
		if (field === "tag") return this.fail("tag only supports tag in [ … ]", at);
		if (op !== "==" && op !== "!=") return this.fail(`ordering operators are not supported on ${field}`, at);
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

	/** `"x" in tags` besides `FIELD in [ … ]`. */
	protected override membership(node: Node): MemoCondition {
		const [leftNode, rightNode] = node.args as [Node, Node];
		if (!isIdentifier(rightNode, "tags")) return super.membership(node);
		const left = this.operand(leftNode);
		if (left.kind !== "string") return this.fail("only a string can be looked up in tags", left.node.start);
		return { kind: "tagIn", values: [left.value] };
	}

	protected fieldIn(field: string, values: Literal[]): MemoCondition | undefined {
		switch (field) {
			case "tag":
				return { kind: "tagIn", values: values.map(item => this.stringValue(item, "tag")) };
			case "content":
				return { kind: "contentIn", values: values.map(item => this.stringValue(item, "content")) };
			case "visibility":
				return { kind: "visibility", values: values.map(item => this.visibility(item)) };
			case "creator":
				return { kind: "creator", usernames: values.map(item => this.username(item)) };
			default:
				return undefined;
		}
	}

	protected textTest(_field: string, fn: TextFunction, value: string): MemoCondition {
		return { kind: "contentText", fn, value };
	}

	protected override method(name: string, receiver: Node, args: Node[], node: Node): MemoCondition {
		if (name !== "exists") return super.method(name, receiver, args, node);
		if (!isIdentifier(receiver, "tags")) return this.fail("exists is only supported on tags", node.start);
		if (args.length !== 2 || args[0].op !== "id") return this.fail("tags.exists needs a variable and a condition: tags.exists(t, …)", node.start);
		const variable = args[0].args as string;
		return { kind: "tagExists", element: walkConnectives(args[1], test => this.tagTest(test, variable)) };
	}

	/** `size(tags)`, compared like a field. */
	protected override functionValue(node: Node): Operand {
		const [name, args] = node.args as [string, Node[]];
		if (name !== "size") return super.functionValue(node);
		if (args.length !== 1 || !isIdentifier(args[0], "tags")) return this.fail("size is only supported as size(tags)", node.start);
		return { kind: "field", name: TAG_COUNT, node };
	}

	/** One test of the element `variable` inside `tags.exists(variable, …)`. */
	private tagTest(node: Node, variable: string): TagCondition {
		switch (node.op) {
			case "==":
			case "!=": {
				const [a, b] = node.args as [Node, Node];
				const [element, other] = isIdentifier(a, variable) ? [a, b] : [b, a];
				if (!isIdentifier(element, variable)) break;
				const value = this.stringValue(this.operand(other), variable);
				return negated({ kind: "in", values: [value] }, node.op === "!=");
			}
			case "<":
			case "<=":
			case ">":
			case ">=":
				return this.fail("ordering operators are not supported on tags", this.operatorAt(node));
			case "in": {
				const [element, list] = node.args as [Node, Node];
				if (!isIdentifier(element, variable)) break;
				const values = this.operand(list);
				if (values.kind !== "list") return this.fail(`${variable} in needs a list of strings [ … ]`, list.start);
				return { kind: "in", values: values.items.map(item => this.stringValue(item, variable)) };
			}
			case "rcall": {
				const [name, receiver, args] = node.args as [string, Node, Node[]];
				if (name === "exists") return this.fail("nested exists is not supported", node.start);
				this.refuseUnsupportedMethod(name, receiver, node);
				if (isTextFunction(name) && isIdentifier(receiver, variable)) {
					return { kind: "text", fn: name, value: this.textArgument(name, args, node) };
				}
				break;
			}
			case "id":
				if (node.args === variable) return this.fail(`${variable} is a string, not a condition`, node.start);
				break;
		}
		return this.fail(`inside tags.exists only tests of ${variable} (==, !=, in, contains, startsWith, endsWith) are supported`, node.start);
	}

	private visibility(operand: Operand): string {
		if (operand.kind === "string" && VISIBILITIES.has(operand.value)) return operand.value;
		return this.fail("visibility must be one of PRIVATE, PROTECTED, PUBLIC, SPACE", operand.node.start);
	}

	private username(operand: Operand): string {
		const username = resourceId(operand, "users");
		if (username === null) return this.fail('creator must be compared with a user name "users/{username}"', operand.node.start);
		this.usernames.add(username);
		return username;
	}
}
