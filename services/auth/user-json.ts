import { toTimestamp } from "../../shared/proto-json.js";
import type { UserDoc } from "./user-doc.js";

/**
 * The User message of contract 4.8; `email` only for the user themself and admins. An avatar
 * stored as a data URI is served by its own route, as upstream does.
 */
export function toUserJson(user: UserDoc, showEmail: boolean): Record<string, unknown> {
	return {
		name: `users/${user.username}`,
		role: user.role,
		username: user.username,
		email: showEmail ? user.email : "",
		displayName: user.displayName,
		avatarUrl: user.avatarUrl.startsWith("data:") ? `/file/users/${user.username}/avatar` : user.avatarUrl,
		description: user.description,
		state: user.state,
		createTime: toTimestamp(user.createTime),
		updateTime: toTimestamp(user.updateTime)
	};
}
