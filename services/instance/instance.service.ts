import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { RequestMeta } from "../../shared/caller.js";
import { BoundedCache } from "../../shared/cache/bounded-cache.js";
import { invalidateOn } from "../../shared/cache/invalidate-on.js";
import { broadcast, call } from "../../shared/contract.js";
import { INSTANCE_SETTING_KEYS, type InstanceSettingKey } from "../../shared/names.js";
import { documentsOf, resourcesOf } from "../../shared/runtime/resources.js";
import { settingUpdated } from "../../shared/settings/instance-settings.contract.js";
import { authActions, authEvents } from "../auth/auth.contract.js";
import { readAccessMode } from "./access-mode.js";
import { getStats } from "./get-stats.js";
import type { AccessMode } from "./instance.contract.js";
import type { InstanceCaches, InstanceDeps } from "./instance-deps.js";
import { instanceStore } from "./instance-store.js";
import { getProfile } from "./profile.js";
import { batchGetSettings, getSetting } from "./read-settings.js";
import { effectiveSetting, type SettingValue } from "./setting-json.js";
import { withoutSecrets } from "./setting-secrets.js";
import { STATS_ACTIONS } from "./stats.js";
import { TEST_EMAIL_TIMEOUT_MS } from "./test-email.js";
import { testEmailSetting } from "./test-email-setting.js";
import { updateSetting } from "./update-setting.js";

interface InstanceSettings extends ServiceSettingSchema {
	/** Time limit of the SMTP exchange of TestInstanceEmailSetting (contract 11.5); tests shorten it. */
	testEmailTimeoutMs: number;
	/** How long InstanceStats may be served from cache (contract 4.11). */
	statsCacheMs: number;
}

interface InstanceMethods {
	/** The rules' dependencies, with the other services called on behalf of `ctx`. */
	deps(ctx: Context): InstanceDeps;
}

interface InstanceVars {
	caches: InstanceCaches;
}

type InstanceThis = Service & InstanceMethods & InstanceVars;

const PROFILE_FACTS_TTL_MS = 30_000;

// Above the SMTP time limit, so that limit answers first. (ActionSchema's type lacks `timeout`.)
const TEST_EMAIL_CALL_LIMIT = { timeout: TEST_EMAIL_TIMEOUT_MS + 5_000 };

type Ctx<P> = Context<P, RequestMeta>;
type SettingParams = { key?: unknown; updateMask?: unknown; setting?: Record<string, unknown> };

/** InstanceService (contract 4.10, 4.11, 11): the profile, the statistics and the settings. */
const InstanceService: ServiceSchema<InstanceSettings, InstanceMethods, InstanceVars> = {
	name: "instance",

	settings: {
		testEmailTimeoutMs: TEST_EMAIL_TIMEOUT_MS,
		statsCacheMs: 60_000
	},

	actions: {
		/** GET /api/v1/instance/profile (contract 4.10). */
		getProfile: {
			handler(ctx: Ctx<unknown>) {
				return getProfile(this.deps(ctx));
			}
		},

		/** GET /api/v1/instance/stats (contract 4.11): admins only, cached. */
		getStats: {
			handler(ctx: Ctx<unknown>) {
				return getStats(this.deps(ctx), ctx.meta.user);
			}
		},

		/** GET /api/v1/instance/settings/{key} (contract 11.1, 11.2). */
		getSetting: {
			handler(ctx: Ctx<SettingParams>) {
				return getSetting(this.deps(ctx), ctx.params, ctx.meta.user);
			}
		},

		/** POST /api/v1/instance/settings:batchGet (contract 11.3): all or nothing, in request order. */
		batchGetSettings: {
			async handler(ctx: Ctx<{ names?: unknown }>) {
				return { settings: await batchGetSettings(this.deps(ctx), ctx.params, ctx.meta.user) };
			}
		},

		/** PATCH /api/v1/instance/settings/{key} (contract 11.4): admins only, checked whole before it is stored. */
		updateSetting: {
			handler(ctx: Ctx<SettingParams>) {
				return updateSetting(this.deps(ctx), ctx.params, ctx.meta.user);
			}
		},

		/** POST /api/v1/instance/settings/notification:testEmail (contract 11.5): nothing is stored. */
		testEmailSetting: {
			...TEST_EMAIL_CALL_LIMIT,
			async handler(ctx: Ctx<{ email?: unknown; recipientEmail?: unknown }>): Promise<void> {
				await testEmailSetting(this.deps(ctx), ctx.params, ctx.meta.user);
			}
		},

		/** A setting's effective value for other services (secrets included; never routed to clients). */
		settingValue: {
			visibility: "public",
			params: { key: { type: "enum", values: [...INSTANCE_SETTING_KEYS] } },
			async handler(ctx: Context<{ key: InstanceSettingKey }>): Promise<SettingValue> {
				return effectiveSetting(ctx.params.key, await this.deps(ctx).store.stored(ctx.params.key));
			}
		},

		/** The same value without its write-only secrets, for the gateway: it needs limits, never a secret (contract 4.12). */
		settingView: {
			visibility: "public",
			params: { key: { type: "enum", values: [...INSTANCE_SETTING_KEYS] } },
			async handler(ctx: Context<{ key: InstanceSettingKey }>): Promise<SettingValue> {
				return withoutSecrets(ctx.params.key, effectiveSetting(ctx.params.key, await this.deps(ctx).store.stored(ctx.params.key)));
			}
		},

		/** The ACCESS setting's mode, read by the gateway for anonymous callers (contract 2.2). */
		accessMode: {
			visibility: "public",
			handler(ctx: Context): Promise<AccessMode> {
				return readAccessMode(this.deps(ctx));
			}
		}
	},

	events: {
		...invalidateOn<InstanceThis, "accessMode", { key: InstanceSettingKey }>(
			settingUpdated.name,
			service => service.caches.accessMode,
			params => (params.key === undefined || params.key === "ACCESS" ? undefined : [])
		),
		...invalidateOn<InstanceThis, "setup">(authEvents.userChanged.name, service => service.caches.setup)
	},

	methods: {
		deps(ctx: Context): InstanceDeps {
			const { config } = resourcesOf(this.broker);
			const documents = documentsOf(this.broker);
			return {
				store: instanceStore(documents),
				peers: {
					setupState: () => call(ctx, authActions.setupState),
					async identityProviderCount() {
						const answer = await call(ctx, authActions.listIdentityProviders);
						return Array.isArray(answer?.identityProviders) ? answer.identityProviders.length : 0;
					},
					async callerEmail() {
						const answer = await call(ctx, authActions.getCurrentUser);
						return typeof answer?.user?.email === "string" ? answer.user.email : "";
					},
					ownerStats: owner => call(ctx, STATS_ACTIONS[owner])
				},
				caches: this.caches,
				statsCacheMs: this.settings.statsCacheMs,
				testEmailTimeoutMs: this.settings.testEmailTimeoutMs,
				env: { instanceUrl: config.instanceUrl, commit: config.commit, apiCompat: config.apiCompat },
				database: async () => ({ driver: documents.driver, sizeBytes: await documents.sizeBytes() }),
				settingStored: key => broadcast(this.broker, settingUpdated, { key }),
				now: () => Date.now()
			};
		}
	},

	created() {
		this.caches = {
			stats: new BoundedCache({ ttlMs: this.settings.statsCacheMs, maxEntries: 1 }),
			setup: new BoundedCache({ ttlMs: PROFILE_FACTS_TTL_MS, maxEntries: 1 }),
			accessMode: new BoundedCache({ ttlMs: PROFILE_FACTS_TTL_MS, maxEntries: 1 })
		};
	}
};

export default InstanceService;
