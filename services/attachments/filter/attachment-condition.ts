import type { Condition } from "../../../shared/cel/condition.js";
import type { Comparison } from "../../../shared/cel/query-parts.js";
import type { TextFunction } from "../../../shared/cel/text-match.js";
import type { TimeValue } from "../../../shared/cel/time-values.js";

export type StringField = "filename" | "mime_type";

/** A checked attachment filter (contract 6.3); `now` is bound only when it is compiled. */
export type AttachmentCondition = Condition<AttachmentPredicate>;

export type AttachmentPredicate =
	| { kind: "string"; field: StringField; op: Comparison; value: string }
	| { kind: "stringIn"; field: StringField; values: string[] }
	| { kind: "text"; field: StringField; fn: TextFunction; value: string }
	| { kind: "time"; op: Comparison; value: TimeValue }
	| { kind: "memo"; memoId: string | null }
	| { kind: "memoIn"; memoIds: string[] };

export interface CheckedAttachmentFilter {
	condition: AttachmentCondition;
	/** The one top-level `space == …` term (contract 6.3): undefined when absent, null for `space == null`. */
	spaceId: string | null | undefined;
}
