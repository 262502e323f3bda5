import type { BoundedCache } from "../../shared/cache/bounded-cache.js";
import type { ApiCompat } from "../../shared/runtime/config.js";
import type { InstanceSettingKey } from "../../shared/names.js";
import type { SetupState } from "../auth/auth.contract.js";
import type { AccessMode } from "./instance.contract.js";
import type { InstanceStore } from "./instance-store.js";
import type { OwnerCounters, StatsOwner } from "./stats.js";

/** The other services, as the instance rules need them; bound to the request they serve. */
export interface InstancePeers {
	/** The auth service's users count and first ADMIN (contract 4.10). */
	setupState(): Promise<SetupState>;
	identityProviderCount(): Promise<number>;
	/** The e-mail address of the signed-in caller, "" when none is set. */
	callerEmail(): Promise<string>;
	/** The `<owner>.stats` answer, as the owner sent it (checked by ownerCounters). */
	ownerStats(owner: StatsOwner): Promise<OwnerCounters>;
}

/**
 * What every profile request needs and almost never changes: the auth service's setup state
 * and the access mode, each dropped by the event of the change (a lost event costs at most the
 * TTL of staleness); and the statistics, the same for every admin.
 */
export interface InstanceCaches {
	setup: BoundedCache<"setup", Promise<SetupState>>;
	accessMode: BoundedCache<"accessMode", Promise<AccessMode>>;
	stats: BoundedCache<"stats", Promise<Record<string, unknown>>>;
}

/** What the instance rules need, handed to the plain modules by the service (and by tests). */
export interface InstanceDeps {
	store: InstanceStore;
	peers: InstancePeers;
	caches: InstanceCaches;
	/** How long InstanceStats may be served from cache (contract 4.11). */
	statsCacheMs: number;
	/** Time limit of the SMTP exchange of TestInstanceEmailSetting (contract 11.5). */
	testEmailTimeoutMs: number;
	/** What the profile says of this deployment. */
	env: { instanceUrl: string; commit: string; apiCompat: ApiCompat };
	/** The document store's driver and size, for InstanceStats. */
	database(): Promise<{ driver: "nedb" | "mongodb"; sizeBytes: number }>;
	/** Tells every node a setting was stored (their settings caches drop it). */
	settingStored(key: InstanceSettingKey): Promise<void>;
	now(): number;
}
