import { BoundedCache } from "../../shared/cache/bounded-cache.js";
import type { Collection } from "../../shared/store/document-store.js";
import { hashPat } from "./pat-hash.js";
import type { PatDoc } from "./personal-access-tokens.js";

/**
 * How long a node trusts its copy of a personal access token. A deletion reaches every node's
 * cache at once through an event (authEvents.patDeleted); this bound keeps the contract's 3 s
 * even when an event is lost.
 */
export const PAT_CACHE_TTL_MS = 3_000;
const MAX_ENTRIES = 10_000;
/** Contract 16: `lastUsedAt` is written at most once a minute per token. */
export const LAST_USED_INTERVAL_MS = 60_000;

interface LivePat {
	id: string;
	userId: string;
	expiresAt: number | null;
	/** Mutated when this node records a use, so its other requests within the minute do not write. */
	lastUsedAt: number | null;
}

export type PatCache = BoundedCache<string, Promise<LivePat | null>>;

/** Keyed by token hash; unknown hashes are cached too (as null), so a flood of made-up tokens costs one read each per TTL. */
export function patCache(clock: () => number): PatCache {
	return new BoundedCache({ ttlMs: PAT_CACHE_TTL_MS, maxEntries: MAX_ENTRIES, clock });
}

async function loadPat(pats: Collection<PatDoc>, tokenHash: string): Promise<LivePat | null> {
	const pat = await pats.findOne({ tokenHash });
	return pat ? { id: pat._id, userId: pat.userId, expiresAt: pat.expiresAt, lastUsedAt: pat.lastUsedAt } : null;
}

/**
 * The user id a personal access token authenticates as, or null when it is unknown, deleted or
 * expired. Served from the node's cache; the store is read once per token per TTL, and written
 * (lastUsedAt) at most once a minute: the write's condition holds across nodes.
 */
export async function userOfPat(pats: Collection<PatDoc>, cache: PatCache, token: string, now: number): Promise<string | null> {
	const tokenHash = hashPat(token);
	const pat = await cache.getOrLoad(tokenHash, () => loadPat(pats, tokenHash));
	if (!pat || (pat.expiresAt !== null && pat.expiresAt <= now)) return null;
	if (pat.lastUsedAt === null || now - pat.lastUsedAt >= LAST_USED_INTERVAL_MS) {
		pat.lastUsedAt = now;
		await pats.update(
			{ _id: pat.id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lte: now - LAST_USED_INTERVAL_MS } }] },
			{ $set: { lastUsedAt: now } }
		);
	}
	return pat.userId;
}
