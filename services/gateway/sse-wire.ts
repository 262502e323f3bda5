import { memoEvents, type MemoChangeEvent } from "../memos/memos.contract.js";

/**
 * What a live stream (`GET /api/v1/sse`, contract 17) carries, as upstream memos sends it
 * (HEAD `server/router/api/v1/sse_hub.go`, `sse_handler.go`): comment lines on open and while
 * idle, and one `data:` line of JSON per change.
 */

export const CONNECTED_FRAME = ": connected\n\n";
export const HEARTBEAT_FRAME = ": heartbeat\n\n";

/** Upstream's SSEEvent: `name` is a memo; `parent` the memo it comments on, when it is a comment. */
export interface SseEvent {
	type: string;
	name: string;
	parent?: string;
}

const COMMENT_CREATED = "memo.comment.created";
const DELETED = "memo.deleted";

/** Upstream's event type of each change; reactions have their own prefix there. */
const UPSTREAM_TYPES: Record<Exclude<keyof typeof memoEvents, "changed">, string> = {
	created: "memo.created",
	updated: "memo.updated",
	deleted: DELETED,
	commentCreated: COMMENT_CREATED,
	reactionUpserted: "reaction.upserted",
	reactionDeleted: "reaction.deleted"
};

/** By broker event name. */
const TYPE_OF_EVENT = new Map(Object.entries(UPSTREAM_TYPES).map(([key, type]) => [memoEvents[key as keyof typeof UPSTREAM_TYPES].name, type]));

/** The event a change is told as, or undefined for an event the stream does not carry. */
export function toSseEvent(eventName: string, change: MemoChangeEvent): SseEvent | undefined {
	const type = TYPE_OF_EVENT.get(eventName);
	if (type === undefined) return undefined;
	// Upstream names the commented memo: its clients refresh that memo and its comments.
	if (type === COMMENT_CREATED) return change.parent === undefined ? undefined : { type, name: change.parent };
	// Upstream's DeleteMemo tells the memo alone, a comment's parent left out.
	if (type === DELETED) return { type, name: change.memo };
	return { type, name: change.memo, ...(change.parent === undefined ? {} : { parent: change.parent }) };
}

export function dataFrame(event: SseEvent): string {
	return `data: ${JSON.stringify(event)}\n\n`;
}
