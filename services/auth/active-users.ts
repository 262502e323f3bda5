import { BoundedCache } from "../../shared/cache/bounded-cache.js";
import type { Caller } from "../../shared/caller.js";
import type { Collection } from "../../shared/store/document-store.js";
import type { UserDoc } from "./user-doc.js";

/** How stale the gateway's view of a user may be: an archived user is locked out within this. */
export const ACTIVE_USER_TTL_MS = 3_000;
const MAX_ENTRIES = 10_000;

/**
 * Who is still NORMAL, with their current name and role, for verifying access tokens without a
 * store read per request. Entries live a few seconds; writes on any replica drop them (USER_CHANGED_EVENT).
 */
export function activeUsersCache(clock: () => number): BoundedCache<string, Promise<Caller | null>> {
	return new BoundedCache({ ttlMs: ACTIVE_USER_TTL_MS, maxEntries: MAX_ENTRIES, clock });
}

/** The caller user `id` stands for while NORMAL; null for a missing or archived user. */
export async function activeCaller(users: Collection<UserDoc>, id: string): Promise<Caller | null> {
	const user = await users.findOne({ _id: id });
	return user && user.state === "NORMAL" ? { id: user._id, username: user.username, role: user.role } : null;
}
