import { defineAction, defineEvent } from "../contract.js";
import type { InstanceSettingKey } from "../names.js";

/**
 * The part of the instance service's contract every service uses through the instance
 * settings mixin; it lives here because shared code may not import services. The instance
 * contract publishes it with its other actions.
 */

/** A setting's effective value (stored or default), secrets included: for use inside services only. */
export const settingValue = defineAction<{ key: InstanceSettingKey }, Record<string, unknown>>("instance.settingValue");

/** The same value with every write-only secret left out: for the gateway, which needs limits and never a secret. */
export const settingView = defineAction<{ key: InstanceSettingKey }, Record<string, unknown>>("instance.settingView");

/** Broadcast by the instance service to every node after a setting is stored. */
export const settingUpdated = defineEvent<{ key?: InstanceSettingKey }>("instance.setting.updated");
