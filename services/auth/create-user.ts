import type { Caller } from "../../shared/caller.js";
import { alreadyExists, invalidArgument, permissionDenied } from "../../shared/errors.js";
import { enumOf, fieldOf, messageOf, stringOf } from "../../shared/request-message.js";
import { DuplicateKeyError } from "../../shared/store/document-store.js";
import { generateId } from "../../shared/ids.js";
import type { AuthDeps } from "./auth-deps.js";
import { checkNewPassword, hashPassword } from "./passwords.js";
import { checkAvatarUrl, checkEmail, checkText, checkUsername } from "./user-input.js";
import type { UserDoc } from "./user-doc.js";

const ROLES = ["ROLE_UNSPECIFIED", "ADMIN", "USER"] as const;
const FIRST_USER_CLAIM = "first-user";

export interface CreateUserParams {
	userId?: unknown;
	user?: unknown;
}

/**
 * The one user allowed to become ADMIN without authentication: whoever inserts the claim
 * first. The unique `_id` of the claim decides between concurrent first sign-ups.
 */
async function claimFirstUser(deps: AuthDeps, userId: string): Promise<boolean> {
	if ((await deps.users.findOne({})) !== null) return false;
	try {
		await deps.claims.insert({ _id: FIRST_USER_CLAIM, userId, createTime: deps.now() });
		return true;
	} catch (err) {
		if (err instanceof DuplicateKeyError) return false;
		throw err;
	}
}

async function checkRegistrationOpen(deps: AuthDeps): Promise<void> {
	const general = await deps.general();
	if (general.disallowUserRegistration === true || general.disallowPasswordAuth === true) throw permissionDenied("user registration is not allowed");
}

/** CreateUser (contract 2.4). */
export async function createUser(deps: AuthDeps, params: CreateUserParams, caller: Caller | null): Promise<UserDoc> {
	const body = messageOf(params.user, "user");
	const username = checkUsername(fieldOf(body, "username"), "user.username");
	const userId = stringOf(params.userId, "userId").trim();
	if (userId !== "" && userId !== username) throw invalidArgument("userId must equal user.username");
	const password = checkNewPassword(fieldOf(body, "password"), "user.password");
	const email = checkEmail(fieldOf(body, "email"), "user.email");
	const displayName = checkText(fieldOf(body, "displayName"), "user.displayName");
	const description = checkText(fieldOf(body, "description"), "user.description");
	const avatarUrl = checkAvatarUrl(fieldOf(body, "avatarUrl"), "user.avatarUrl");
	const askedRole = enumOf(fieldOf(body, "role"), ROLES, "user.role");

	const maybeFirst = (await deps.users.findOne({})) === null;
	if (!maybeFirst && caller?.role !== "ADMIN") await checkRegistrationOpen(deps);
	const passwordHash = await hashPassword(password);

	const id = generateId();
	let role: UserDoc["role"] = caller?.role === "ADMIN" && askedRole === "ADMIN" ? "ADMIN" : "USER";
	const first = maybeFirst && (await claimFirstUser(deps, id));
	if (first) role = "ADMIN";
	else if (maybeFirst && caller?.role !== "ADMIN") await checkRegistrationOpen(deps);

	const now = deps.now();
	const user: UserDoc = { _id: id, username, role, state: "NORMAL", email, displayName, avatarUrl, description, passwordHash, createTime: now, updateTime: now };
	try {
		await deps.users.insert(user);
	} catch (err) {
		if (first) await deps.claims.remove({ _id: FIRST_USER_CLAIM });
		if (err instanceof DuplicateKeyError) throw alreadyExists(`user ${username} already exists`);
		throw err;
	}
	return user;
}
