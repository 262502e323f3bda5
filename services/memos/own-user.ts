import type { Caller } from "../../shared/caller.js";
import { notFound, permissionDenied } from "../../shared/errors.js";

/**
 * The user of a `users/{user}/…` resource that only that user manages (shortcuts,
 * notifications; contract 16, 17): an unknown username is NOT_FOUND, anyone else, instance
 * ADMINs included (as upstream), PERMISSION_DENIED.
 */
export async function ownUser(
	userIds: (usernames: string[]) => Promise<Map<string, string>>,
	username: unknown,
	caller: Caller,
	what: string
): Promise<{ id: string; username: string }> {
	const name = typeof username === "string" ? username : "";
	const id = name === "" ? undefined : (await userIds([name])).get(name);
	if (id === undefined) throw notFound(`user ${name} not found`);
	if (id !== caller.id) throw permissionDenied(`only the user themself may manage their ${what}`);
	return { id, username: name };
}
