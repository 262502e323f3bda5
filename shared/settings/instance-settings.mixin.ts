import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { BoundedCache } from "../cache/bounded-cache.js";
import { invalidateOn } from "../cache/invalidate-on.js";
import { call } from "../contract.js";
import { INSTANCE_SETTING_KEYS, type InstanceSettingKey } from "../names.js";
import { settingUpdated, settingValue, settingView } from "./instance-settings.contract.js";

/** A lost event costs at most this much staleness. */
export const SETTINGS_CACHE_TTL_MS = 30_000;

export interface InstanceSettingsMethods {
	/**
	 * The effective value of a setting (stored or default), from the instance service, cached:
	 * with its secrets through `instance.settingValue` (InstanceSettingsMixin), without them
	 * through `instance.settingView` (InstanceSettingViewsMixin).
	 */
	instanceSetting(key: InstanceSettingKey): Promise<Record<string, unknown>>;
}

interface MixinVars {
	settingsCache: BoundedCache<InstanceSettingKey, Promise<Record<string, unknown>>>;
}

type MixinThis = Service & InstanceSettingsMethods & MixinVars;

type SettingAction = typeof settingValue | typeof settingView;

/** Gives a service `this.instanceSetting(key)` read through `action`; every replica drops its cache on the update event. */
function instanceSettingsMixin(action: SettingAction): Partial<ServiceSchema<ServiceSettingSchema, InstanceSettingsMethods, MixinVars>> {
	return {
		events: invalidateOn<MixinThis, InstanceSettingKey, { key: InstanceSettingKey }>(
			settingUpdated.name,
			service => service.settingsCache,
			params => (params.key ? [params.key] : undefined)
		),
		methods: {
			instanceSetting(this: MixinThis, key: InstanceSettingKey): Promise<Record<string, unknown>> {
				return this.settingsCache.getOrLoad(key, () => call(this.broker, action, { key }));
			}
		},
		created() {
			this.settingsCache = new BoundedCache({ ttlMs: SETTINGS_CACHE_TTL_MS, maxEntries: INSTANCE_SETTING_KEYS.length });
		}
	};
}

/** Settings with their secrets (an AI provider's key, the SMTP password): for services that use them, never for the gateway. */
export const InstanceSettingsMixin = instanceSettingsMixin(settingValue);

/** Settings without their secrets: for the gateway, which reads only limits from them. */
export const InstanceSettingViewsMixin = instanceSettingsMixin(settingView);
