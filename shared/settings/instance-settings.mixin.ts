import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { BoundedCache } from "../cache/bounded-cache.js";
import { invalidateOn } from "../cache/invalidate-on.js";
import { call } from "../contract.js";
import { INSTANCE_SETTING_KEYS, type InstanceSettingKey } from "../names.js";
import { settingUpdated, settingValue } from "./instance-settings.contract.js";

/** A lost event costs at most this much staleness. */
export const SETTINGS_CACHE_TTL_MS = 30_000;

export interface InstanceSettingsMethods {
	/**
	 * The effective value of a setting (stored or default, secrets included: for use inside
	 * services only), from the instance service through `instance.settingValue`, cached.
	 */
	instanceSetting(key: InstanceSettingKey): Promise<Record<string, unknown>>;
}

interface MixinVars {
	settingsCache: BoundedCache<InstanceSettingKey, Promise<Record<string, unknown>>>;
}

type MixinThis = Service & InstanceSettingsMethods & MixinVars;

/** Gives a service `this.instanceSetting(key)`; every replica drops its cache on the update event. */
export const InstanceSettingsMixin: Partial<ServiceSchema<ServiceSettingSchema, InstanceSettingsMethods, MixinVars>> = {
	events: invalidateOn<MixinThis, InstanceSettingKey, { key: InstanceSettingKey }>(
		settingUpdated.name,
		service => service.settingsCache,
		params => (params.key ? [params.key] : undefined)
	),
	methods: {
		instanceSetting(this: MixinThis, key: InstanceSettingKey): Promise<Record<string, unknown>> {
			return this.settingsCache.getOrLoad(key, () =>
				call(this.broker, settingValue, { key })
			);
		}
	},
	created() {
		this.settingsCache = new BoundedCache({ ttlMs: SETTINGS_CACHE_TTL_MS, maxEntries: INSTANCE_SETTING_KEYS.length });
	}
};
