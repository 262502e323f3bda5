import type { UserRef } from "../../auth/auth.contract.js";
import { mayRead } from "../memo-access.js";
import type { MemoDoc } from "../memo-doc.js";
import type { SpaceRoles } from "../memo-spaces.js";
import type { NotificationType } from "./notification-doc.js";

/** One notification a saved memo calls for. */
export interface PlannedNotification {
	recipientId: string;
	type: NotificationType;
	memoId: string;
	relatedMemoId: string | null;
}

export interface PlanInput {
	/** The memo as stored after the save. */
	memo: MemoDoc;
	/** The commented memo when `memo` is a comment and it is still there; else null. */
	parent: MemoDoc | null;
	/** The active users the content mentions (mentions.ts), as auth knows them. */
	mentioned: readonly UserRef[];
	/** Those of the candidates who are members of the memo's space (only asked for SPACE memos). */
	spaceMemberIds: ReadonlySet<string>;
}

/**
 * Who a saved memo notifies (contract 17, upstream v0.30.0 memo_service_comments.go and
 * memo_mention_helpers.go), judged on the memo as stored:
 * - a comment on someone else's memo: that memo's creator (MEMO_COMMENT), if they can read the
 *   comment (comments are independent memos here: upstream skips PRIVATE comments, and no
 *   notification may lead to content its recipient cannot read);
 * - every active user `@username` mentions (MEMO_MENTION), except the author and, on a comment,
 *   the commented memo's creator (told by MEMO_COMMENT already, as upstream), if they can read
 *   the memo (contract 3.2; an ARCHIVED or deleted memo notifies nobody).
 * Whether one was already sent is the store's unique key's business (notification-doc.ts):
 * planning the same memo again plans the same notifications.
 */
export function planNotifications(input: PlanInput): PlannedNotification[] {
	const { memo, parent } = input;
	const readable = (userId: string) => mayRead(memo, { id: userId, username: "", role: "USER" }, spacesOf(memo, userId, input.spaceMemberIds));
	const planned: PlannedNotification[] = [];
	const commentedOn = parent !== null && parent._id === memo.parentId && parent.creatorId !== memo.creatorId ? parent : null;
	if (commentedOn !== null && readable(commentedOn.creatorId)) {
		planned.push({ recipientId: commentedOn.creatorId, type: "MEMO_COMMENT", memoId: memo._id, relatedMemoId: commentedOn._id });
	}
	for (const user of input.mentioned) {
		if (user.state !== "NORMAL" || user.id === memo.creatorId || user.id === commentedOn?.creatorId || !readable(user.id)) continue;
		planned.push({ recipientId: user.id, type: "MEMO_MENTION", memoId: memo._id, relatedMemoId: memo.parentId });
	}
	return planned;
}

/** The space roles that matter to reading `memo`: its space, when `userId` is a member. */
function spacesOf(memo: MemoDoc, userId: string, spaceMemberIds: ReadonlySet<string>): SpaceRoles {
	return memo.spaceId !== null && spaceMemberIds.has(userId) ? new Map([[memo.spaceId, "MEMBER"]]) : new Map();
}

/** The users whose read right on `memo` decides whether they are notified: who is asked of the spaces service. */
export function candidateIds(memo: MemoDoc, parent: MemoDoc | null, mentioned: readonly UserRef[]): string[] {
	const ids = new Set(mentioned.map(user => user.id));
	if (parent !== null) ids.add(parent.creatorId);
	ids.delete(memo.creatorId);
	return [...ids];
}
