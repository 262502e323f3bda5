import type { Context, ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { RequestMeta } from "../../shared/caller.js";
import type { Collection, Doc } from "../../shared/store/document-store.js";
import { documentsOf, resourcesOf } from "../../shared/runtime/resources.js";
import type { SetupState } from "../auth/auth.service.js";
import { INSTANCE_SETTING_KEYS, type InstanceSettingKey } from "../../shared/names.js";
import { toProfileJson, type AccessMode } from "./profile.js";
import { SETTING_DEFAULTS } from "./setting-defaults.js";

interface SettingDoc extends Doc {
	value: Record<string, unknown>;
}

interface InstanceMethods {
	settingsCollection(): Collection<SettingDoc>;
	readAccessMode(): Promise<AccessMode>;
}

const InstanceService: ServiceSchema<ServiceSettingSchema, InstanceMethods> = {
	name: "instance",

	actions: {
		getProfile: {
			async handler(ctx: Context<unknown, RequestMeta>) {
				const [setup, accessMode] = await Promise.all([ctx.call<SetupState>("auth.setupState"), this.readAccessMode()]);
				const { instanceUrl, commit } = resourcesOf(this.broker).config;
				return toProfileJson(setup, accessMode, { instanceUrl, commit });
			}
		},

		/** A setting's effective value for other services (secrets included; never routed to clients). */
		settingValue: {
			visibility: "public",
			params: { key: { type: "enum", values: [...INSTANCE_SETTING_KEYS] } },
			async handler(ctx: Context<{ key: InstanceSettingKey }>): Promise<Record<string, unknown>> {
				const stored = await this.settingsCollection().findOne({ _id: ctx.params.key });
				return { ...SETTING_DEFAULTS[ctx.params.key], ...stored?.value };
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

	methods: {
		settingsCollection() {
			return documentsOf(this.broker).collection<SettingDoc>("instance_settings");
		},

		async readAccessMode(): Promise<AccessMode> {
			const stored = await this.settingsCollection().findOne({ _id: "ACCESS" });
			return stored?.value.accessMode === "INSTANCE_ACCESS_MODE_PUBLIC" ? "INSTANCE_ACCESS_MODE_PUBLIC" : "INSTANCE_ACCESS_MODE_PRIVATE";
		}
	}
};

export default InstanceService;
