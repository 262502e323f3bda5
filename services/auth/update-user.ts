import type { Caller } from "../../shared/caller.js";
import { alreadyExists, invalidArgument, notFound, permissionDenied } from "../../shared/errors.js";
import { parseUpdateMask } from "../../shared/field-mask.js";
import { enumOf, fieldOf, messageOf } from "../../shared/request-message.js";
import { DuplicateKeyError } from "../../shared/store/document-store.js";
import type { AuthDeps } from "./auth-deps.js";
import { checkNewPassword, hashPassword } from "./passwords.js";
import { familyOf, revokeUserFamilies } from "./refresh-tokens.js";
import { findByUsername, keepOneActiveAdmin } from "./user-access.js";
import type { UserDoc } from "./user-doc.js";
import { checkAvatarUrl, checkEmail, checkText, checkUsername } from "./user-input.js";

const PATHS = ["username", "display_name", "email", "avatar_url", "description", "password", "role", "state"] as const;

export interface UpdateUserParams {
	user?: unknown;
	updateMask?: unknown;
	patch?: unknown;
}

export interface UpdateUserResult {
	user: UserDoc;
}

/** UpdateUser (contract 2.4); `refreshCookie` is the caller's, so their own session survives a password change. */
export async function updateUser(deps: AuthDeps, params: UpdateUserParams, caller: Caller, refreshCookie: string | undefined): Promise<UpdateUserResult> {
	const target = await findByUsername(deps.users, params.user);
	const isAdmin = caller.role === "ADMIN";
	if (!isAdmin && caller.id !== target._id) throw permissionDenied("you may only update yourself");
	if (params.updateMask !== undefined && typeof params.updateMask !== "string") throw invalidArgument("updateMask must be a string");
	const paths = parseUpdateMask(params.updateMask, PATHS, { required: true });
	const body = messageOf(params.patch, "user");
	const general = paths.includes("username") || paths.includes("display_name") ? await deps.general() : {};

	const set: Partial<UserDoc> = {};
	for (const path of paths) {
		const value = fieldOf(body, path);
		switch (path) {
			case "username":
				if (general.disallowChangeUsername === true) throw permissionDenied("changing usernames is not allowed");
				set.username = checkUsername(value, "user.username");
				break;
			case "display_name":
				if (general.disallowChangeNickname === true) throw permissionDenied("changing display names is not allowed");
				set.displayName = checkText(value, "user.displayName");
				break;
			case "email":
				set.email = checkEmail(value, "user.email");
				break;
			case "avatar_url":
				set.avatarUrl = checkAvatarUrl(value, "user.avatarUrl");
				break;
			case "description":
				set.description = checkText(value, "user.description");
				break;
			case "password":
				set.passwordHash = checkNewPassword(value, "user.password");
				break;
			case "role": {
				if (!isAdmin) throw permissionDenied("only an admin may change roles");
				const role = enumOf(value, ["ROLE_UNSPECIFIED", "ADMIN", "USER"] as const, "user.role");
				if (role === "ROLE_UNSPECIFIED") throw invalidArgument("user.role must be ADMIN or USER");
				set.role = role;
				break;
			}
			case "state": {
				if (!isAdmin) throw permissionDenied("only an admin may change states");
				const state = enumOf(value, ["STATE_UNSPECIFIED", "NORMAL", "ARCHIVED"] as const, "user.state");
				if (state === "STATE_UNSPECIFIED") throw invalidArgument("user.state must be NORMAL or ARCHIVED");
				set.state = state;
				break;
			}
		}
	}
	if (set.role === "USER" && target.role === "ADMIN") await keepOneActiveAdmin(deps.users, target, "demote");
	if (set.state === "ARCHIVED" && target.state === "NORMAL") await keepOneActiveAdmin(deps.users, target, "archive");
	if (set.passwordHash !== undefined) set.passwordHash = await hashPassword(set.passwordHash);

	set.updateTime = deps.now();
	let updated: UserDoc | null;
	try {
		updated = await deps.users.findOneAndUpdate({ _id: target._id }, { $set: set });
	} catch (err) {
		if (err instanceof DuplicateKeyError) throw alreadyExists(`user ${set.username} already exists`);
		throw err;
	}
	if (!updated) throw notFound(`user ${target.username} not found`);

	if (set.state === "ARCHIVED") deps.sessionsRevoked(await revokeUserFamilies(deps.refreshTokens, target._id));
	else if (set.passwordHash !== undefined) {
		// The session the change was made from: the access token's, or the cookie's (a personal access token has none).
		const own = caller.id === target._id ? (caller.sessionId ?? (await familyOf(deps.refreshTokens, refreshCookie))) : undefined;
		deps.sessionsRevoked(await revokeUserFamilies(deps.refreshTokens, target._id, own));
	}
	return { user: updated };
}
