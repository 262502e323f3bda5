import type { Condition } from "../../../shared/cel/condition.js";
import type { Comparison } from "../../../shared/cel/query-parts.js";
import type { TextFunction } from "../../../shared/cel/text-match.js";
import type { TimeValue } from "../../../shared/cel/time-values.js";

/**
 * A checked memo filter (contract 6.2), independent of the request: names of users and `now`
 * are resolved only when it is compiled.
 */
export type MemoCondition = Condition<MemoPredicate>;

export type MemoPredicate =
	| { kind: "flag"; field: FlagField; value: boolean }
	| { kind: "content"; op: "=="; value: string }
	| { kind: "contentIn"; values: string[] }
	| { kind: "contentText"; fn: TextFunction; value: string }
	| { kind: "visibility"; values: string[] }
	| { kind: "creator"; usernames: string[] }
	| { kind: "time"; field: TimeField; op: Comparison; value: TimeValue }
	| { kind: "space"; spaceId: string | null }
	| { kind: "tagIn"; values: string[] }
	| { kind: "tagExists"; element: TagCondition }
	| { kind: "tagCount"; op: Comparison; value: bigint };

/** A condition on one tag inside `tags.exists(t, …)`. */
export type TagCondition = Condition<TagTest>;

export type TagTest = { kind: "in"; values: string[] } | { kind: "text"; fn: TextFunction; value: string };

export type { Comparison } from "../../../shared/cel/query-parts.js";

export type FlagField = "pinned" | "has_task_list" | "has_link" | "has_code" | "has_incomplete_tasks" | "has_location";
export type TimeField = "created_ts" | "updated_ts";

export type { TimeValue } from "../../../shared/cel/time-values.js";
