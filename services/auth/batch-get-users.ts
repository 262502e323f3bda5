import type { Caller } from "../../shared/caller.js";
import { invalidArgument } from "../../shared/errors.js";
import type { Collection } from "../../shared/store/document-store.js";
import { BATCH_GET_USERS_MAX as MAX_USERNAMES } from "./auth.contract.js";
import type { UserDoc } from "./user-doc.js";
import { mayReadEmail } from "./user-access.js";
import { toUserJson } from "./user-json.js";

/**
 * BatchGetUsers (contract 16, `users:batchGet`): the active users of up to 100 usernames, in the
 * order asked; blank, repeated and unknown names are left out (as upstream v0.30.0).
 */
export async function batchGetUsers(users: Collection<UserDoc>, raw: unknown, caller: Caller | null | undefined): Promise<Record<string, unknown>> {
	if (raw !== undefined && raw !== null && (!Array.isArray(raw) || raw.some(name => typeof name !== "string"))) throw invalidArgument("usernames must be a list of strings");
	const given = ((raw ?? []) as string[]).map(name => name.trim()).filter(name => name !== "");
	if (given.length > MAX_USERNAMES) throw invalidArgument(`too many usernames (max ${MAX_USERNAMES})`);
	const usernames = [...new Set(given)];
	if (usernames.length === 0) return { users: [] };
	const found = new Map((await users.find({ username: { $in: usernames }, state: "NORMAL" })).map(user => [user.username, user]));
	return {
		users: usernames.flatMap(name => {
			const user = found.get(name);
			return user ? [toUserJson(user, mayReadEmail(caller, user))] : [];
		})
	};
}
