import type { Caller } from "../../../shared/caller.js";
import { invalidArgument, notFound } from "../../../shared/errors.js";
import { parseUpdateMask } from "../../../shared/field-mask.js";
import { listPage, pageSizeParam } from "../../../shared/paging/list-page.js";
import { enumOf, fieldOf, messageOf, queryStringOf, stringOf } from "../../../shared/request-message.js";
import type { Collection } from "../../../shared/store/document-store.js";
import type { MemoDoc } from "../memo-doc.js";
import type { SpaceRoles } from "../memo-spaces.js";
import { ownUser } from "../own-user.js";
import { NOTIFICATION_ORDER, NOTIFICATION_STATUSES, type NotificationDoc } from "./notification-doc.js";
import { notificationJson, type NotificationView, type Sender } from "./notification-json.js";

/**
 * ListUserNotifications, UpdateUserNotification and DeleteUserNotification (contract 17,
 * upstream v0.30.0 `users/{user}/notifications`): only the recipient, instance ADMINs
 * included, as upstream. A notification is named under its recipient, so another user's id
 * under one's own name is NOT_FOUND.
 */

export interface NotificationDeps {
	notifications: Collection<NotificationDoc>;
	memos: Collection<MemoDoc>;
	/** User ids per username, in one call. */
	userIds(usernames: string[]): Promise<Map<string, string>>;
	/** The sender per user id, whatever the user's state, its User message as the caller may see it, in one call. */
	senders(ids: string[]): Promise<Map<string, Sender>>;
	/** The caller's spaces and roles. */
	spacesOf(caller: Caller): Promise<SpaceRoles>;
}

const LIST_USER_NOTIFICATIONS = "ListUserNotifications";
const KEY_TYPES = { createTime: "number", _id: "string" } as const;

const recipientOf = (deps: NotificationDeps, username: unknown, caller: Caller) => ownUser(deps.userIds, username, caller, "notifications");

/** What the notifications' JSON needs besides themselves, read for a whole page at once (notification-json.ts). */
async function viewOf(deps: NotificationDeps, docs: readonly NotificationDoc[], caller: Caller): Promise<NotificationView> {
	if (docs.length === 0) return { senders: new Map(), memos: new Map(), caller, spaces: new Map() };
	const memoIds = [...new Set(docs.flatMap(doc => (doc.relatedMemoId === null ? [doc.memoId] : [doc.memoId, doc.relatedMemoId])))];
	const [senders, memos, spaces] = await Promise.all([
		deps.senders([...new Set(docs.map(doc => doc.senderId))]),
		deps.memos.find({ _id: { $in: memoIds }, deleteTime: null }),
		deps.spacesOf(caller)
	]);
	return { senders, memos: new Map(memos.map(memo => [memo._id, memo])), caller, spaces };
}

/** ListUserNotifications: newest first, paged (contract 1.7); `filter` is accepted and ignored, as upstream v0.30.0 does. */
export async function listUserNotifications(
	deps: NotificationDeps,
	params: { user?: unknown; pageSize?: unknown; pageToken?: unknown; filter?: unknown },
	caller: Caller
): Promise<Record<string, unknown>> {
	const recipient = await recipientOf(deps, params.user, caller);
	if (params.pageToken !== undefined && typeof params.pageToken !== "string") throw invalidArgument("pageToken must be a string");
	// A string as upstream's field is, whose value upstream's handler never reads.
	stringOf(params.filter, "filter");
	const page = await listPage(deps.notifications, {
		operation: LIST_USER_NOTIFICATIONS,
		query: { user: recipient.id },
		pageSize: pageSizeParam(params.pageSize),
		pageToken: params.pageToken,
		sort: NOTIFICATION_ORDER,
		keyTypes: KEY_TYPES,
		branches: [{ recipientId: recipient.id }]
	});
	const view = await viewOf(deps, page.items, caller);
	return { notifications: page.items.map(doc => notificationJson(doc, recipient.username, view)), nextPageToken: page.nextPageToken };
}

export interface UpdateUserNotificationParams {
	user?: unknown;
	notification?: unknown;
	patch?: unknown;
	updateMask?: unknown;
}

/** UpdateUserNotification: `status` (UNREAD or ARCHIVED) as named by updateMask, the only path. */
export async function updateUserNotification(deps: NotificationDeps, params: UpdateUserNotificationParams, caller: Caller): Promise<Record<string, unknown>> {
	const recipient = await recipientOf(deps, params.user, caller);
	parseUpdateMask(queryStringOf(params.updateMask, "updateMask"), ["status"], { required: true });
	const status = enumOf(fieldOf(messageOf(params.patch, "notification"), "status"), NOTIFICATION_STATUSES, "status");
	if (status === "STATUS_UNSPECIFIED") throw invalidArgument("status must be UNREAD or ARCHIVED");
	const id = typeof params.notification === "string" ? params.notification : "";
	const updated = await deps.notifications.findOneAndUpdate({ _id: id, recipientId: recipient.id }, { $set: { status } });
	if (updated === null) throw notFound(`notification users/${recipient.username}/notifications/${id} not found`);
	return notificationJson(updated, recipient.username, await viewOf(deps, [updated], caller));
}

/** DeleteUserNotification: removes it for good. */
export async function deleteUserNotification(deps: NotificationDeps, params: { user?: unknown; notification?: unknown }, caller: Caller): Promise<void> {
	const recipient = await recipientOf(deps, params.user, caller);
	const id = typeof params.notification === "string" ? params.notification : "";
	const removed = await deps.notifications.remove({ _id: id, recipientId: recipient.id });
	if (removed === 0) throw notFound(`notification users/${recipient.username}/notifications/${id} not found`);
}
