import type { Caller } from "../../shared/caller.js";
import type { AuthDeps } from "./auth-deps.js";
import { findByUsername, mayReadEmail } from "./user-access.js";
import { toUserJson } from "./user-json.js";

/** GetUser (contract 2.4); anonymous callers reach it on public instances only (the gateway checks). */
export async function getUser(deps: AuthDeps, username: unknown, caller: Caller | null | undefined): Promise<Record<string, unknown>> {
	const user = await findByUsername(deps.users, username);
	return toUserJson(user, mayReadEmail(caller, user));
}
