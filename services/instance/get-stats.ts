import type { Caller } from "../../shared/caller.js";
import type { InstanceDeps } from "./instance-deps.js";
import { requireAdmin } from "./setting-access.js";
import { ownerCounters, STATS_OWNERS, toStatsJson, type OwnerCounters, type StatsOwner } from "./stats.js";

/** Every owner's counters, one call each, and the database's size. */
async function gatherStats(deps: InstanceDeps): Promise<Record<string, unknown>> {
	const owners = Object.keys(STATS_OWNERS) as StatsOwner[];
	const parts = await Promise.all(owners.map(async owner => ownerCounters(owner, await deps.peers.ownerStats(owner))));
	const counters = Object.assign({}, ...parts) as Required<OwnerCounters>;
	return toStatsJson(counters, await deps.database(), deps.now());
}

/** GetInstanceStats (contract 4.11): admins only, cached. */
export function getStats(deps: InstanceDeps, caller: Caller | null | undefined): Promise<Record<string, unknown>> {
	requireAdmin(caller, "read the instance statistics");
	return deps.caches.stats.getOrLoad("stats", () => gatherStats(deps), deps.statsCacheMs);
}
