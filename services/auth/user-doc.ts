/** A user as the auth service stores it (collection `users`, `_id` = internal id). */
export interface UserDoc {
	_id: string;
	username: string;
	role: "ADMIN" | "USER";
	state: "NORMAL" | "ARCHIVED";
	email: string;
	displayName: string;
	avatarUrl: string;
	description: string;
	passwordHash: string;
	/** Epoch milliseconds. */
	createTime: number;
	updateTime: number;
	[key: string]: unknown;
}

export const USERS = "users";
