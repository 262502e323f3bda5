import type { Caller } from "../../shared/caller.js";
import { invalidArgument } from "../../shared/errors.js";
import { parseSettingKey, parseSettingName } from "../../shared/names.js";
import type { InstanceDeps } from "./instance-deps.js";
import { settingReadView } from "./setting-access.js";
import { toSettingJson } from "./setting-json.js";

const BATCH_GET_MAX = 100;

/** GetInstanceSetting (contract 11.1, 11.2). */
export async function getSetting(deps: InstanceDeps, params: { key?: unknown }, caller: Caller | null | undefined): Promise<Record<string, unknown>> {
	const key = parseSettingKey(String(params.key ?? ""), "name");
	const view = settingReadView(key, caller);
	return toSettingJson(key, await deps.store.stored(key), view);
}

/** BatchGetInstanceSettings (contract 11.3): all or nothing, in request order. */
export async function batchGetSettings(deps: InstanceDeps, params: { names?: unknown }, caller: Caller | null | undefined): Promise<Record<string, unknown>[]> {
	const names = params.names ?? [];
	if (!Array.isArray(names)) throw invalidArgument("names must be an array of setting names");
	if (names.length > BATCH_GET_MAX) throw invalidArgument(`names: at most ${BATCH_GET_MAX} names`);
	const requested = names.map((name, i) => {
		if (typeof name !== "string") throw invalidArgument(`names[${i}] must be a string`);
		const key = parseSettingName(name, `names[${i}]`);
		return { key, view: settingReadView(key, caller) };
	});
	if (requested.length === 0) return [];
	const stored = await deps.store.storedMany(requested.map(r => r.key));
	return requested.map(({ key, view }) => toSettingJson(key, stored.get(key), view));
}
