import { BoundedCache } from "../../shared/cache/bounded-cache.js";
import type { Collection } from "../../shared/store/document-store.js";
import type { RefreshTokenDoc } from "./refresh-tokens.js";

/**
 * How long a node trusts its knowledge that a session is live. A revocation reaches every node's
 * cache at once through an event (authEvents.sessionsRevoked); this bound keeps the contract's 3 s
 * (19, "Revocation") with room for the request itself even when an event is lost.
 */
export const SESSION_CACHE_TTL_MS = 2_000;
const MAX_ENTRIES = 10_000;

/** Session (refresh family) id → whether it is still live; so that verifying an access token reads the store once per session per TTL. */
export type LiveSessions = BoundedCache<string, Promise<boolean>>;

export function liveSessionsCache(clock: () => number): LiveSessions {
	return new BoundedCache({ ttlMs: SESSION_CACHE_TTL_MS, maxEntries: MAX_ENTRIES, clock });
}

/** A session lives while its family has a token: SignOut, reuse detection and user-wide revocation remove them all. */
export async function isLiveSession(tokens: Collection<RefreshTokenDoc>, cache: LiveSessions, sessionId: string): Promise<boolean> {
	return cache.getOrLoad(sessionId, async () => (await tokens.findOne({ familyId: sessionId })) !== null);
}
