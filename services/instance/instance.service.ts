import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { RequestMeta } from "../../shared/caller.js";
import { BoundedCache } from "../../shared/cache/bounded-cache.js";
import { invalidateOn } from "../../shared/cache/invalidate-on.js";
import { fieldOf, stringOf } from "../../shared/request-message.js";
import { invalidArgument, failedPrecondition } from "../../shared/errors.js";
import type { Collection, Doc } from "../../shared/store/document-store.js";
import { documentsOf, resourcesOf } from "../../shared/runtime/resources.js";
import { broadcast, call } from "../../shared/contract.js";
import { settingUpdated } from "../../shared/settings/instance-settings.contract.js";
import { authActions, authEvents, type SetupState } from "../auth/auth.contract.js";
import { INSTANCE_SETTING_KEYS, parseSettingKey, parseSettingName, type InstanceSettingKey } from "../../shared/names.js";
import type { AccessMode } from "./instance.contract.js";
import { toProfileJson } from "./profile.js";
import { requireAdmin, settingReadView } from "./setting-access.js";
import { effectiveSetting, parseEmailSetting, parseSettingBody, toSettingJson, type SettingValue } from "./setting-json.js";
import { mergeSetting, parseSettingMask } from "./setting-mask.js";
import { keepStoredSecrets } from "./setting-secrets.js";
import { validateSetting } from "./setting-validation.js";
import { ownerCounters, STATS_ACTIONS, STATS_OWNERS, toStatsJson, type OwnerCounters } from "./stats.js";
import { checkRecipient, resolveSmtpSettings, sendTestEmail, TEST_EMAIL_TIMEOUT_MS } from "./test-email.js";

/**
 * The value is kept as JSON text: TAGS keys are regular expressions, which may hold `.` and
 * `$`, and neither store accepts those in field names.
 */
interface SettingDoc extends Doc {
	json: string;
}

interface InstanceSettings extends ServiceSettingSchema {
	/** Time limit of the SMTP exchange of TestInstanceEmailSetting (contract 11.5); tests shorten it. */
	testEmailTimeoutMs: number;
	/** How long InstanceStats may be served from cache (contract 4.11). */
	statsCacheMs: number;
}

interface InstanceMethods {
	settingsCollection(): Collection<SettingDoc>;
	storedSetting(key: InstanceSettingKey): Promise<SettingValue | undefined>;
	/** The ACCESS setting's mode, cached. */
	readAccessMode(): Promise<AccessMode>;
	identityProviderCount(ctx: Context<unknown, RequestMeta>): Promise<number>;
	callerEmail(ctx: Context<unknown, RequestMeta>): Promise<string>;
	gatherStats(ctx: Context<unknown, RequestMeta>): Promise<Record<string, unknown>>;
}

interface InstanceVars {
	/** One entry: the statistics are the same for every admin. */
	statsCache: BoundedCache<"stats", Promise<Record<string, unknown>>>;
	/**
	 * What every profile request needs and almost never changes: the auth service's setup
	 * state and the access mode, each dropped by the event of the change (a lost event costs
	 * at most the TTL of staleness).
	 */
	setupCache: BoundedCache<"setup", Promise<SetupState>>;
	accessModeCache: BoundedCache<"accessMode", Promise<AccessMode>>;
}

type InstanceThis = Service & InstanceMethods & InstanceVars;

const PROFILE_FACTS_TTL_MS = 30_000;

const SETTINGS = "instance_settings";
const BATCH_GET_MAX = 100;

// Above the SMTP time limit, so that limit answers first. (ActionSchema's type lacks `timeout`.)
const TEST_EMAIL_CALL_LIMIT = { timeout: TEST_EMAIL_TIMEOUT_MS + 5_000 };

type SettingParams = { key?: unknown; updateMask?: unknown; setting?: Record<string, unknown> };

const InstanceService: ServiceSchema<InstanceSettings, InstanceMethods, InstanceVars> = {
	name: "instance",

	settings: {
		testEmailTimeoutMs: TEST_EMAIL_TIMEOUT_MS,
		statsCacheMs: 60_000
	},

	actions: {
		/** GET /api/v1/instance/profile (contract 4.10). */
		getProfile: {
			async handler(ctx: Context<unknown, RequestMeta>) {
				const [setup, accessMode] = await Promise.all([
					this.setupCache.getOrLoad("setup", () => call(ctx, authActions.setupState)),
					this.readAccessMode()
				]);
				const { instanceUrl, commit } = resourcesOf(this.broker).config;
				return toProfileJson(setup, accessMode, { instanceUrl, commit });
			}
		},

		/** GET /api/v1/instance/stats (contract 4.11): admins only, cached. */
		getStats: {
			async handler(ctx: Context<unknown, RequestMeta>) {
				requireAdmin(ctx.meta.user, "read the instance statistics");
				return this.statsCache.getOrLoad("stats", () => this.gatherStats(ctx), this.settings.statsCacheMs);
			}
		},

		/** GET /api/v1/instance/settings/{key} (contract 11.1, 11.2). */
		getSetting: {
			async handler(ctx: Context<SettingParams, RequestMeta>) {
				const key = parseSettingKey(String(ctx.params.key ?? ""), "name");
				const view = settingReadView(key, ctx.meta.user);
				return toSettingJson(key, await this.storedSetting(key), view);
			}
		},

		/** POST /api/v1/instance/settings:batchGet (contract 11.3): all or nothing, in request order. */
		batchGetSettings: {
			async handler(ctx: Context<{ names?: unknown }, RequestMeta>) {
				const names = ctx.params.names ?? [];
				if (!Array.isArray(names)) throw invalidArgument("names must be an array of setting names");
				if (names.length > BATCH_GET_MAX) throw invalidArgument(`names: at most ${BATCH_GET_MAX} names`);
				const requested = names.map((name, i) => {
					if (typeof name !== "string") throw invalidArgument(`names[${i}] must be a string`);
					const key = parseSettingName(name, `names[${i}]`);
					return { key, view: settingReadView(key, ctx.meta.user) };
				});
				if (requested.length === 0) return { settings: [] };
				const docs = await this.settingsCollection().find({ _id: { $in: [...new Set(requested.map(r => r.key))] } });
				const stored = new Map(docs.map(doc => [doc._id, JSON.parse(doc.json) as SettingValue]));
				return { settings: requested.map(({ key, view }) => toSettingJson(key, stored.get(key), view)) };
			}
		},

		/** PATCH /api/v1/instance/settings/{key} (contract 11.4): admins only, checked whole before it is stored. */
		updateSetting: {
			async handler(ctx: Context<SettingParams, RequestMeta>) {
				requireAdmin(ctx.meta.user, "change instance settings");
				const key = parseSettingKey(String(ctx.params.key ?? ""), "name");
				const mask = parseSettingMask(key, ctx.params.updateMask);
				const body = parseSettingBody(key, ctx.params.setting ?? {});
				const stored = await this.storedSetting(key);
				const next = mergeSetting(key, stored, body, mask);
				keepStoredSecrets(key, next, stored);
				validateSetting(key, next);
				if (key === "GENERAL" && next.disallowPasswordAuth === true && (await this.identityProviderCount(ctx)) === 0) {
					throw failedPrecondition("password sign-in cannot be disabled while no identity provider exists");
				}
				await this.settingsCollection().update({ _id: key }, { $set: { json: JSON.stringify(next) } }, { upsert: true });
				if (key === "ACCESS") this.accessModeCache.invalidate();
				await broadcast(this.broker, settingUpdated, { key });
				return toSettingJson(key, next, "admin");
			}
		},

		/** POST /api/v1/instance/settings/notification:testEmail (contract 11.5): nothing is stored. */
		testEmailSetting: {
			...TEST_EMAIL_CALL_LIMIT,
			async handler(ctx: Context<{ email?: unknown; recipientEmail?: unknown }, RequestMeta>) {
				requireAdmin(ctx.meta.user, "test the e-mail settings");
				const email = fieldOf(ctx.params, "email");
				const given = email === undefined ? undefined : parseEmailSetting(email);
				const stored = (await this.storedSetting("NOTIFICATION"))?.email as SettingValue | undefined;
				const smtp = resolveSmtpSettings(given, stored);
				const recipientEmail = stringOf(fieldOf(ctx.params, "recipientEmail"), "recipientEmail").trim();
				const recipient = checkRecipient(recipientEmail || (await this.callerEmail(ctx)));
				await sendTestEmail(smtp, recipient, this.settings.testEmailTimeoutMs);
			}
		},

		/** A setting's effective value for other services (secrets included; never routed to clients). */
		settingValue: {
			visibility: "public",
			params: { key: { type: "enum", values: [...INSTANCE_SETTING_KEYS] } },
			async handler(ctx: Context<{ key: InstanceSettingKey }>): Promise<SettingValue> {
				return effectiveSetting(ctx.params.key, await this.storedSetting(ctx.params.key));
			}
		},

		/** The ACCESS setting's mode, read by the gateway for anonymous callers (contract 2.2). */
		accessMode: {
			visibility: "public",
			handler(): Promise<AccessMode> {
				return this.readAccessMode();
			}
		}
	},

	events: {
		...invalidateOn<InstanceThis, "accessMode", { key: InstanceSettingKey }>(
			settingUpdated.name,
			service => service.accessModeCache,
			params => (params.key === undefined || params.key === "ACCESS" ? undefined : [])
		),
		...invalidateOn<InstanceThis, "setup">(authEvents.userChanged.name, service => service.setupCache)
	},

	methods: {
		settingsCollection() {
			return documentsOf(this.broker).collection<SettingDoc>(SETTINGS);
		},

		async storedSetting(key: InstanceSettingKey): Promise<SettingValue | undefined> {
			const doc = await this.settingsCollection().findOne({ _id: key });
			return doc ? (JSON.parse(doc.json) as SettingValue) : undefined;
		},

		readAccessMode(): Promise<AccessMode> {
			return this.accessModeCache.getOrLoad("accessMode", async () => {
				const stored = await this.storedSetting("ACCESS");
				return stored?.accessMode === "INSTANCE_ACCESS_MODE_PUBLIC" ? "INSTANCE_ACCESS_MODE_PUBLIC" : "INSTANCE_ACCESS_MODE_PRIVATE";
			});
		},

		async identityProviderCount(ctx: Context<unknown, RequestMeta>): Promise<number> {
			const answer = await call(ctx, authActions.listIdentityProviders);
			return Array.isArray(answer?.identityProviders) ? answer.identityProviders.length : 0;
		},

		async callerEmail(ctx: Context<unknown, RequestMeta>): Promise<string> {
			const answer = await call(ctx, authActions.getCurrentUser);
			return typeof answer?.user?.email === "string" ? answer.user.email : "";
		},

		async gatherStats(ctx: Context<unknown, RequestMeta>): Promise<Record<string, unknown>> {
			const owners = Object.keys(STATS_OWNERS) as (keyof typeof STATS_OWNERS)[];
			const parts = await Promise.all(owners.map(async owner => ownerCounters(owner, await call(ctx, STATS_ACTIONS[owner]))));
			const documents = documentsOf(this.broker);
			const counters = Object.assign({}, ...parts) as Required<OwnerCounters>;
			return toStatsJson(counters, { driver: documents.driver, sizeBytes: await documents.sizeBytes() }, Date.now());
		}
	},

	created() {
		this.statsCache = new BoundedCache({ ttlMs: this.settings.statsCacheMs, maxEntries: 1 });
		this.setupCache = new BoundedCache({ ttlMs: PROFILE_FACTS_TTL_MS, maxEntries: 1 });
		this.accessModeCache = new BoundedCache({ ttlMs: PROFILE_FACTS_TTL_MS, maxEntries: 1 });
	}
};

export default InstanceService;
