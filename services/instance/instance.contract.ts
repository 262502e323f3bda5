import { defineAction, defineApiAction } from "../../shared/contract.js";
import { settingUpdated, settingValue, settingView } from "../../shared/settings/instance-settings.contract.js";

/** The instance service's published boundary: what other services and the gateway may use of it. */

export type AccessMode = "INSTANCE_ACCESS_MODE_PRIVATE" | "INSTANCE_ACCESS_MODE_PUBLIC";

export const instanceActions = {
	getProfile: defineApiAction("instance.getProfile"),
	getStats: defineApiAction("instance.getStats"),
	getSetting: defineApiAction("instance.getSetting"),
	batchGetSettings: defineApiAction("instance.batchGetSettings"),
	updateSetting: defineApiAction("instance.updateSetting"),
	testEmailSetting: defineApiAction("instance.testEmailSetting"),
	settingValue,
	settingView,
	/** The ACCESS setting's mode: anonymous callers are allowed on a PUBLIC instance only. */
	accessMode: defineAction<undefined, AccessMode>("instance.accessMode")
} as const;

export const instanceEvents = {
	settingUpdated
} as const;
