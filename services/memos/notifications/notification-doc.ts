import type { Collection, Doc, IndexSpec } from "../../../shared/store/document-store.js";

/** The kinds of UserNotification (upstream v0.30.0 `UserNotification.Type`, contract 17). */
export type NotificationType = "MEMO_COMMENT" | "MEMO_MENTION";
export const NOTIFICATION_STATUSES = ["STATUS_UNSPECIFIED", "UNREAD", "ARCHIVED"] as const;
export type NotificationStatus = Exclude<(typeof NOTIFICATION_STATUSES)[number], "STATUS_UNSPECIFIED">;

/**
 * A notification in a user's inbox (memos-store.ts). It holds ids only: the
 * snippets and the sender's User message are read when it is listed, with the recipient's
 * read right at that moment (as upstream does), so a memo deleted or hidden later shows no
 * content through its notifications.
 */
export interface NotificationDoc extends Doc {
	recipientId: string;
	/** Who made the comment or wrote the mention: the memo's creator. */
	senderId: string;
	type: NotificationType;
	/** The comment (MEMO_COMMENT) or the memo holding the mention (MEMO_MENTION). */
	memoId: string;
	/** The commented memo, when `memoId` is a comment; null otherwise. */
	relatedMemoId: string | null;
	status: NotificationStatus;
	createTime: number;
}

/** Newest first, as upstream lists them; `_id` breaks ties. */
export const NOTIFICATION_ORDER = { createTime: -1, _id: -1 } as const;

const NOTIFICATION_INDEXES: readonly IndexSpec[] = [
	// Once per (recipient, memo, kind): a mention notifies once however often the memo is saved,
	// and a retried or repeated pass (notify-memo.ts) cannot notify twice.
	{ fields: { recipientId: 1, memoId: 1, type: 1 }, unique: true },
	// A user's inbox page by page.
	{ fields: { recipientId: 1, ...NOTIFICATION_ORDER } },
	// DeleteUser: what the user sent.
	{ fields: { senderId: 1 } }
];

export async function ensureNotificationIndexes(notifications: Collection<NotificationDoc>): Promise<void> {
	for (const spec of NOTIFICATION_INDEXES) await notifications.ensureIndex(spec);
}
