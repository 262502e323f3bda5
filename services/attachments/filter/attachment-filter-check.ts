import { negated } from "../../../shared/cel/condition.js";
import { FilterChecker, flatten, isIdentifier, type FieldOperand, type Literal, type Node, type Operand } from "../../../shared/cel/filter-check.js";
import type { FilterSource } from "../../../shared/cel/filter-source.js";
import type { Comparison } from "../../../shared/cel/query-parts.js";
import type { TextFunction } from "../../../shared/cel/text-match.js";
import type { AttachmentCondition, AttachmentPredicate, CheckedAttachmentFilter, StringField } from "./attachment-condition.js";

/**
 * Type-checks a parsed attachment filter against the fields of contract 6.3 and turns it into
 * an AttachmentCondition. The grammar is checked by the shared FilterChecker; this file states
 * the attachment fields: strings compared in byte order, `memo_id`, and the `space` term, which
 * is taken out: it must be a top-level conjunct, at most once, never negated, and only
 * `== "spaces/…"` or `== null`.
 */

const FIELDS: ReadonlySet<string> = new Set(["filename", "mime_type", "create_time", "memo_id", "space"]);

export function checkAttachmentFilter(root: Node, source: FilterSource): CheckedAttachmentFilter {
	const checker = new AttachmentChecker(source);
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

class AttachmentChecker extends FilterChecker<AttachmentPredicate> {
	constructor(source: FilterSource) {
		super(source, { fields: FIELDS, textFields: ["filename", "mime_type"] });
	}

	/** The space id of a top-level `space == …` term; undefined when the node is not one. */
	spaceTerm(node: Node): string | null | undefined {
		if (node.op !== "==") return undefined;
		const [a, b] = node.args as [Node, Node];
		const value = isIdentifier(a, "space") ? b : isIdentifier(b, "space") ? a : null;
		if (value === null) return undefined;
		const operand = this.operand(value);
		return operand.kind === "null" ? null : this.spaceId(operand);
	}

	protected fieldComparison(left: FieldOperand, op: Comparison, right: Operand, at: number): AttachmentCondition {
		switch (left.name) {
			case "filename":
			case "mime_type":
				return { kind: "string", field: left.name, op, value: this.stringValue(right, left.name) };
			case "create_time":
				return { kind: "time", op, value: this.timeValue(right, "create_time") };
			case "memo_id": {
				if (op !== "==" && op !== "!=") return this.fail("ordering operators are not supported on memo_id", at);
				return negated({ kind: "memo", memoId: right.kind === "null" ? null : this.memoId(right) }, op === "!=");
			}
			default:
				return this.fail('space may only appear once, as a top-level term space == "spaces/…" or space == null', left.node.start);
		}
	}

	protected fieldIn(field: string, values: Literal[]): AttachmentCondition | undefined {
		switch (field) {
			case "filename":
			case "mime_type":
				return { kind: "stringIn", field, values: values.map(item => this.stringValue(item, field)) };
			case "memo_id":
				return { kind: "memoIn", memoIds: values.map(item => this.memoId(item)) };
			default:
				return undefined;
		}
	}

	protected textTest(field: string, fn: TextFunction, value: string): AttachmentCondition {
		return { kind: "text", field: field as StringField, fn, value };
	}

	/** A bare memo id or a full `memos/{id}` name. */
	private memoId(operand: Operand): string {
		if (operand.kind !== "string") return this.fail("memo_id must be compared with a memo id string or null", operand.node.start);
		return operand.value.startsWith("memos/") ? operand.value.slice("memos/".length) : operand.value;
	}
}
