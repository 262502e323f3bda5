import type { InstanceSettingKey } from "../../shared/names.js";

/**
 * The value of each setting when it was never stored (contract 4.12), as the instance
 * service keeps it internally (secrets included; they are blanked on the way out).
 */
export const SETTING_DEFAULTS: Record<InstanceSettingKey, Record<string, unknown>> = {
	GENERAL: {
		disallowUserRegistration: false,
		disallowPasswordAuth: false,
		additionalScript: "",
		additionalStyle: "",
		weekStartDayOffset: 0,
		disallowChangeUsername: false,
		disallowChangeNickname: false
	},
	STORAGE: {
		storageType: "LOCAL",
		filepathTemplate: "assets/{timestamp}_{uuid}_{filename}",
		uploadSizeLimitMb: 30,
		storages: [],
		defaultStorageId: ""
	},
	MEMO_RELATED: {
		contentLengthLimit: 8192,
		enableDoubleClickEdit: false,
		reactions: ["👍", "👎", "❤️", "🎉", "😄", "😕", "😢", "😡"]
	},
	TAGS: { tags: {} },
	NOTIFICATION: {},
	AI: { providers: [] },
	ACCESS: { accessMode: "INSTANCE_ACCESS_MODE_PRIVATE" }
};
