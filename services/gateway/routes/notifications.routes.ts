import { memosActions } from "../../memos/memos.contract.js";
import type { RouteSpec } from "../route-spec.js";

/**
 * A user's notifications (contract 17, upstream v0.30.0 UserService paths): the memos service
 * makes and keeps them, as the memo's comment and mention rules are its own.
 */
export const notificationsRoutes: RouteSpec[] = [
	{
		operation: "ListUserNotifications",
		method: "GET",
		path: "/api/v1/users/{user}/notifications",
		action: memosActions.listUserNotifications,
		access: "signed-in",
		summary: "A user's MEMO_COMMENT and MEMO_MENTION notifications, newest first (the user themself)."
	},
	{
		operation: "UpdateUserNotification",
		method: "PATCH",
		path: "/api/v1/users/{user}/notifications/{notification}",
		action: memosActions.updateUserNotification,
		access: "signed-in",
		// Not `notification`: the path parameter of that name would replace it.
		body: "patch",
		idempotent: true,
		summary: "Sets the status named by updateMask: UNREAD or ARCHIVED (the user themself)."
	},
	{
		operation: "DeleteUserNotification",
		method: "DELETE",
		path: "/api/v1/users/{user}/notifications/{notification}",
		action: memosActions.deleteUserNotification,
		access: "signed-in",
		empty: true,
		idempotent: true,
		summary: "Deletes a notification (the user themself)."
	}
];
