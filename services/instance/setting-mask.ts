import { parseUpdateMask } from "../../shared/field-mask.js";
import { invalidArgument } from "../../shared/errors.js";
import type { InstanceSettingKey } from "../../shared/names.js";
import { completeSetting, fieldDefault, type SettingValue } from "./setting-json.js";
import { snakeName } from "../../shared/request-message.js";
import { SETTING_SPECS, VALUE_FIELDS } from "./setting-schema.js";

/**
 * What an UpdateInstanceSetting mask names (contract 11.4): paths relative to the setting
 * (`general_setting.disallow_user_registration`), the bare field name as shorthand, or the
 * value field itself for the whole value. Null means the whole value is replaced.
 */
export function parseSettingMask(key: InstanceSettingKey, raw: unknown): string[] | null {
	if (raw !== undefined && typeof raw !== "string") throw invalidArgument("updateMask must be a comma-separated list of paths");
	const valueField = snakeName(VALUE_FIELDS[key]);
	const fields = Object.entries(SETTING_SPECS[key])
		.filter(([, spec]) => spec.kind !== "output")
		.map(([name]) => name);
	const bySnake = new Map(fields.map(name => [snakeName(name), name]));
	const accepted = [valueField, ...bySnake.keys(), ...[...bySnake.keys()].map(f => `${valueField}.${f}`)];
	const paths = parseUpdateMask(raw, accepted, { allowNested: true });
	if (paths.length === 0 || paths.includes(valueField)) return null;
	return [...new Set(paths.map(path => bySnake.get(path.startsWith(`${valueField}.`) ? path.slice(valueField.length + 1) : path) as string))];
}

/**
 * The value to store: with no mask the body's value replaces the stored one (absent fields
 * take their defaults); with a mask only the named fields change, a named field that the
 * body leaves out being cleared to its default.
 */
export function mergeSetting(
	key: InstanceSettingKey,
	stored: SettingValue | undefined,
	body: SettingValue | undefined,
	mask: string[] | null
): SettingValue {
	if (mask === null) {
		if (body === undefined) throw invalidArgument(`the body must carry ${VALUE_FIELDS[key]}`);
		return completeSetting(key, body);
	}
	const next = completeSetting(key, structuredClone(stored ?? {}));
	for (const field of mask) {
		const value = body?.[field] ?? fieldDefault(key, field);
		if (value === undefined) delete next[field];
		else next[field] = value;
	}
	return next;
}
