import type { Caller } from "../../shared/caller.js";
import { failedPrecondition } from "../../shared/errors.js";
import { parseSettingKey } from "../../shared/names.js";
import type { InstanceDeps } from "./instance-deps.js";
import { requireAdmin } from "./setting-access.js";
import { parseSettingBody, toSettingJson } from "./setting-json.js";
import { mergeSetting, parseSettingMask } from "./setting-mask.js";
import { keepStoredSecrets } from "./setting-secrets.js";
import { validateSetting } from "./setting-validation.js";

/** UpdateInstanceSetting (contract 11.4): admins only, checked whole before it is stored. */
export async function updateSetting(
	deps: InstanceDeps,
	params: { key?: unknown; updateMask?: unknown; setting?: Record<string, unknown> },
	caller: Caller | null | undefined
): Promise<Record<string, unknown>> {
	requireAdmin(caller, "change instance settings");
	const key = parseSettingKey(String(params.key ?? ""), "name");
	const mask = parseSettingMask(key, params.updateMask);
	const body = parseSettingBody(key, params.setting ?? {});
	const stored = await deps.store.stored(key);
	const next = mergeSetting(key, stored, body, mask);
	keepStoredSecrets(key, next, stored);
	validateSetting(key, next);
	if (key === "GENERAL" && next.disallowPasswordAuth === true && (await deps.peers.identityProviderCount()) === 0) {
		throw failedPrecondition("password sign-in cannot be disabled while no identity provider exists");
	}
	await deps.store.save(key, next);
	if (key === "ACCESS") deps.caches.accessMode.invalidate();
	await deps.settingStored(key);
	return toSettingJson(key, next, "admin");
}
