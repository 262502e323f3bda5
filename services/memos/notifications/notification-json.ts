import type { Caller } from "../../../shared/caller.js";
import { formatName } from "../../../shared/names.js";
import { toTimestamp } from "../../../shared/proto-json.js";
import { mayRead } from "../memo-access.js";
import type { MemoDoc } from "../memo-doc.js";
import type { SpaceRoles } from "../memo-spaces.js";
import type { NotificationDoc } from "./notification-doc.js";

/** A notification's sender: `users/{username}`, and the User message unless it cannot be had (a rolling deploy). */
export interface Sender {
	name: string;
	user?: Record<string, unknown>;
}

/** What a page of notifications is shown with, read once per page (user-notifications.ts). */
export interface NotificationView {
	/** Per sender id, an archived sender's too (as upstream); a deleted sender has none. */
	senders: ReadonlyMap<string, Sender>;
	/** The memos the notifications name that are not deleted. */
	memos: ReadonlyMap<string, MemoDoc>;
	/** The recipient, and their spaces: the payload shows only what they can read now. */
	caller: Caller;
	spaces: SpaceRoles;
}

/**
 * The UserNotification message (upstream v0.30.0): `sender` and `senderUser` whatever the
 * sender's state (DeleteUser removes a user's notifications with them). The payload (`memoComment` or `memoMention`, one of a oneof) is shown only
 * while the recipient can read its memo (for a comment, both memos), as upstream decides it
 * when listing: after the memo is deleted, archived or hidden from them, the notification
 * stays, without it. A mention's `relatedMemo` (the commented memo) is "" unless readable too.
 */
export function notificationJson(doc: NotificationDoc, recipient: string, view: NotificationView): Record<string, unknown> {
	const sender = view.senders.get(doc.senderId);
	const json: Record<string, unknown> = { name: `users/${recipient}/notifications/${doc._id}`, sender: sender?.name ?? "" };
	if (sender?.user !== undefined) json.senderUser = sender.user;
	Object.assign(json, { status: doc.status, createTime: toTimestamp(doc.createTime), type: doc.type });
	const readable = (id: string | null) => {
		const memo = id === null ? undefined : view.memos.get(id);
		return mayRead(memo, view.caller, view.spaces) ? memo : undefined;
	};
	const memo = readable(doc.memoId);
	const related = readable(doc.relatedMemoId);
	if (memo === undefined) return json;
	const payload = {
		memo: formatName("memo", memo._id),
		relatedMemo: related === undefined ? "" : formatName("memo", related._id),
		memoSnippet: memo.snippet,
		relatedMemoSnippet: related?.snippet ?? ""
	};
	if (doc.type === "MEMO_MENTION") json.memoMention = payload;
	else if (related !== undefined) json.memoComment = payload;
	return json;
}
