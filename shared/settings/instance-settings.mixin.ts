import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { InstanceSettingKey } from "../names.js";

/** Broadcast by the instance service to every node after a setting is stored. */
export const SETTING_UPDATED_EVENT = "instance.setting.updated";

/** A lost event costs at most this much staleness. */
const CACHE_TTL_MS = 30_000;

interface CacheEntry {
	value: Promise<Record<string, unknown>>;
	expires: number;
}

export interface InstanceSettingsMethods {
	/**
	 * The effective value of a setting (stored or default, secrets included: for use inside
	 * services only), from the instance service through `instance.settingValue`, cached.
	 */
	instanceSetting(key: InstanceSettingKey): Promise<Record<string, unknown>>;
}

interface MixinVars {
	settingsCache: Map<InstanceSettingKey, CacheEntry>;
}

type MixinThis = Service & InstanceSettingsMethods & MixinVars;

/** Gives a service `this.instanceSetting(key)`; every replica drops its cache on the update event. */
export const InstanceSettingsMixin: Partial<ServiceSchema<ServiceSettingSchema, InstanceSettingsMethods, MixinVars>> = {
	events: {
		[SETTING_UPDATED_EVENT](this: MixinThis, ctx: Context<{ key?: InstanceSettingKey }>) {
			if (ctx.params.key) this.settingsCache.delete(ctx.params.key);
			else this.settingsCache.clear();
		}
	},
	methods: {
		instanceSetting(this: MixinThis, key: InstanceSettingKey): Promise<Record<string, unknown>> {
			const now = Date.now();
			const hit = this.settingsCache.get(key);
			if (hit && hit.expires > now) return hit.value;
			const value = this.broker.call<Record<string, unknown>, { key: InstanceSettingKey }>("instance.settingValue", { key });
			this.settingsCache.set(key, { value, expires: now + CACHE_TTL_MS });
			value.catch(() => this.settingsCache.delete(key));
			return value;
		}
	},
	created() {
		this.settingsCache = new Map();
	}
};
