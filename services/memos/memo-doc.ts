/** Flags derived from content (contract 5.2), stored so filters can use them. */
export interface MemoProperty {
	hasLink: boolean;
	hasTaskList: boolean;
	hasCode: boolean;
	hasIncompleteTasks: boolean;
	title: string;
}

export interface MemoLocation {
	placeholder: string;
	latitude: number;
	longitude: number;
}

export type Visibility = "PRIVATE" | "PROTECTED" | "PUBLIC" | "SPACE";
export type MemoState = "NORMAL" | "ARCHIVED";

/**
 * Attachments a CreateMemo or UpdateMemo links to the memo (names in display order; null: the
 * attachments it has follow its space), under a mark of that request.
 */
export interface PendingLinks {
	mark: string;
	names: string[] | null;
}

/** A stored change that webhooks report, waiting in its memo's outbox (memo-outbox.ts). */
export interface OutboxEntry {
	id: string;
	event: "memo.created" | "memo.updated" | "memo.deleted" | "memo.comment.created";
	/** Epoch ms of the change. */
	time: number;
	/** Whose webhooks receive it when not the memo's creator's: a new comment's commented memo's creator. */
	recipientId?: string;
}

/**
 * A memo as the memos service stores it (collection `memos`). Times are epoch milliseconds;
 * `seq` is a creation sequence that breaks ties between equal sort keys (contract 6.4).
 * `creatorId` is the auth service's internal user id; names are resolved per request.
 */
export interface MemoDoc {
	_id: string;
	seq: number;
	creatorId: string;
	content: string;
	visibility: Visibility;
	state: MemoState;
	pinned: boolean;
	createTime: number;
	updateTime: number;
	tags: string[];
	property: MemoProperty;
	snippet: string;
	location: MemoLocation | null;
	spaceId: string | null;
	/** The commented memo's id while this memo is a comment (contract 7.7); null for top-level memos. */
	parentId: string | null;
	/** Set while the memo is soft-deleted (contract 7.6). */
	deleteTime: number | null;
	/** What is left of a change that spans services while it is half-done: the memo's deletion (memo-cleanup.ts), its attachments' links (memo-attachment-links.ts). */
	cleanup?: "hide" | "purge" | "link" | null;
	/** With `cleanup: "link"`: the attachments to link. */
	linking?: PendingLinks | null;
	/** When a save that may notify someone (a comment, a mention) was stored, until its notifications are (notify-memo.ts). */
	notifyPending?: number;
	/** Changes stored with the memo and not yet recorded as webhook deliveries (memo-outbox.ts). */
	outbox?: OutboxEntry[];
	/** Set while `outbox` holds entries, so the relay pass finds such memos by an index. */
	outboxPending?: true;
	[key: string]: unknown;
}

/**
 * A REFERENCE relation (contract 4.2, 7.8), one document per (memo, related memo). A COMMENT
 * relation is not stored apart: it is the comment memo's `parentId` (relations.ts).
 */
export interface RelationDoc {
	/** `r:{memoId}:{relatedMemoId}`; ids never contain a colon, so duplicates cannot exist. */
	_id: string;
	memoId: string;
	relatedMemoId: string;
	createTime: number;
	[key: string]: unknown;
}

/** A reaction (contract 4.3, 7.10): at most one per (user, memo), enforced by a unique index. */
export interface ReactionDoc {
	_id: string;
	memoId: string;
	creatorId: string;
	reactionType: string;
	createTime: number;
	[key: string]: unknown;
}

/** A share link (contract 4.4, 7.11). The document id is the bearer token itself. */
export interface ShareDoc {
	_id: string;
	memoId: string;
	creatorId: string;
	createTime: number;
	/** Epoch ms; null never expires. */
	expireTime: number | null;
	[key: string]: unknown;
}
