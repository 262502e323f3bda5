import type { Caller } from "../../shared/caller.js";
import { attachmentsActions } from "../attachments/attachments.contract.js";
import { memosActions } from "../memos/memos.contract.js";
import { spacesActions } from "../spaces/spaces.contract.js";
import type { AuthDeps } from "./auth-deps.js";
import { revokeUserFamilies } from "./refresh-tokens.js";
import { findByUsername, keepOneActiveAdmin, requireAdmin } from "./user-access.js";
import type { UserDoc } from "./user-doc.js";

/**
 * The actions through which the services owning a user's data remove it (contract 2.4:
 * memberships, reactions, share links, attachments, memos), one call per service. Each takes
 * `{ userId }` and is idempotent, so a failed DeleteUser can simply be retried.
 */
export const USER_DATA_CLEANUP_ACTIONS = [spacesActions.deleteUserData, memosActions.deleteUserData, attachmentsActions.deleteUserData] as const;

/** DeleteUser (contract 2.4): admins only; never the last active admin. */
export async function deleteUser(
	deps: AuthDeps,
	username: unknown,
	caller: Caller | null | undefined,
	cleanUp: (userId: string) => Promise<void>
): Promise<UserDoc> {
	requireAdmin(caller);
	const user = await findByUsername(deps.users, username);
	await keepOneActiveAdmin(deps.users, user, "delete");
	// Data first: if a service fails, the user still exists and the deletion can be retried.
	await cleanUp(user._id);
	deps.sessionsRevoked(await revokeUserFamilies(deps.refreshTokens, user._id));
	await deps.userLinks.remove({ userId: user._id }, { multi: true });
	await deps.pats.remove({ userId: user._id }, { multi: true });
	await deps.userSettings.remove({ userId: user._id }, { multi: true });
	// Retired, not removed: they still send what was recorded until now (the deletion of each of
	// the user's memos, above); the delivery worker removes them once nothing is pending (delivery-worker.ts).
	await deps.webhooks.update({ userId: user._id }, { $set: { retired: true } }, { multi: true });
	await deps.users.remove({ _id: user._id });
	return user;
}
