import { invalidArgument } from "../../shared/errors.js";
import { formatSettingName, INSTANCE_SETTING_KEYS, type InstanceSettingKey } from "../../shared/names.js";
import { parseEnum, parseInt32, parseInt64, toInt64 } from "../../shared/proto-json.js";
import { fieldOf } from "../../shared/request-message.js";
import { SETTING_DEFAULTS } from "./setting-defaults.js";
import { SETTING_SPECS, VALUE_FIELDS, type FieldSpec, type MessageSpec } from "./setting-schema.js";

/**
 * InstanceSetting values between proto3 JSON (contract 1.2, 1.3) and the form the service
 * stores: lowerCamelCase fields, int64 as numbers, enums as names, secrets in clear.
 */

export type SettingValue = Record<string, unknown>;

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseFloatValue(value: unknown, field: string): number {
	if (typeof value === "number") return value;
	if (typeof value === "string" && value.trim() !== "") {
		if (value === "NaN" || value === "Infinity" || value === "-Infinity") return Number(value);
		const n = Number(value);
		if (!Number.isNaN(n)) return n;
	}
	throw invalidArgument(`${field} must be a number`);
}

function parseField(spec: FieldSpec, value: unknown, field: string): unknown {
	switch (spec.kind) {
		case "bool":
			if (typeof value !== "boolean") throw invalidArgument(`${field} must be true or false`);
			return value;
		case "string":
			if (typeof value !== "string") throw invalidArgument(`${field} must be a string`);
			return value;
		case "int32":
			return parseInt32(value, field);
		case "int64":
			return parseInt64(value, field);
		case "float":
			return parseFloatValue(value, field);
		case "enum":
			return parseEnum(value, spec.names, field);
		case "message":
			return completeMessage(spec.fields, parseMessage(spec.fields, value, field));
		case "repeated":
			if (!Array.isArray(value)) throw invalidArgument(`${field} must be an array`);
			return value.map((item, i) => {
				if (item === null) throw invalidArgument(`${field}[${i}] must not be null`);
				return parseField(spec.of, item, `${field}[${i}]`);
			});
		case "map": {
			if (!isObject(value)) throw invalidArgument(`${field} must be an object`);
			const out: Record<string, unknown> = {};
			for (const [k, v] of Object.entries(value)) {
				if (v === null) throw invalidArgument(`${field}[${JSON.stringify(k)}] must not be null`);
				out[k] = parseField(spec.of, v, `${field}[${JSON.stringify(k)}]`);
			}
			return out;
		}
		case "output":
			return undefined;
	}
}

/** The fields present in `input`, typed; absent and output-only fields are left out. */
function parseMessage(spec: MessageSpec, input: unknown, field: string): Record<string, unknown> {
	if (!isObject(input)) throw invalidArgument(`${field} must be an object`);
	const out: Record<string, unknown> = {};
	for (const [name, fieldSpec] of Object.entries(spec)) {
		if (fieldSpec.kind === "output") continue;
		const raw = fieldOf(input, name);
		if (raw === undefined) continue;
		out[name] = parseField(fieldSpec, raw, `${field}.${name}`);
	}
	return out;
}

/** The zero value of a field as stored; undefined for fields that are absent when unset. */
function zeroValue(spec: FieldSpec): unknown {
	switch (spec.kind) {
		case "bool":
			return false;
		case "string":
			return "";
		case "int32":
		case "int64":
			return 0;
		case "float":
			return spec.optional ? undefined : 0;
		case "enum":
			return spec.names[0];
		case "repeated":
			return [];
		case "map":
			return {};
		default:
			return undefined;
	}
}

/** Fills the scalar, repeated and map fields a nested message left out with their zero values. */
function completeMessage(spec: MessageSpec, value: Record<string, unknown>): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [name, fieldSpec] of Object.entries(spec)) {
		const v = value[name] ?? zeroValue(fieldSpec);
		if (v !== undefined) out[name] = v;
	}
	return out;
}

/** The value a field of a setting takes when it is cleared: the setting's default, else the zero value. */
export function fieldDefault(key: InstanceSettingKey, field: string): unknown {
	const defaults = SETTING_DEFAULTS[key];
	return Object.hasOwn(defaults, field) ? structuredClone(defaults[field]) : zeroValue(SETTING_SPECS[key][field] as FieldSpec);
}

/** A whole setting value as stored: every top-level field present (defaults for the absent ones). */
export function completeSetting(key: InstanceSettingKey, present: SettingValue): SettingValue {
	const out: SettingValue = {};
	for (const field of Object.keys(SETTING_SPECS[key])) {
		if (SETTING_SPECS[key][field]?.kind === "output") continue;
		const v = present[field] ?? fieldDefault(key, field);
		if (v !== undefined) out[field] = v;
	}
	return out;
}

/**
 * The value field of an UpdateInstanceSetting body for `key`: present fields only (so an
 * update mask can tell set from absent), or undefined when the body carries no value.
 * A value field of another key is INVALID_ARGUMENT (contract 11.4).
 */
export function parseSettingBody(key: InstanceSettingKey, body: Record<string, unknown>): SettingValue | undefined {
	for (const other of INSTANCE_SETTING_KEYS) {
		if (other !== key && fieldOf(body, VALUE_FIELDS[other]) !== undefined) {
			throw invalidArgument(`the body carries ${VALUE_FIELDS[other]} but the setting is ${key} (expected ${VALUE_FIELDS[key]})`);
		}
	}
	const raw = fieldOf(body, VALUE_FIELDS[key]);
	return raw === undefined ? undefined : parseMessage(SETTING_SPECS[key], raw, VALUE_FIELDS[key]);
}

/** The `email` of a TestInstanceEmailSetting request, read as NOTIFICATION's `email` field. */
export function parseEmailSetting(raw: unknown): SettingValue {
	return parseField(SETTING_SPECS.NOTIFICATION.email as FieldSpec, raw, "email") as SettingValue;
}

/** Values read through their floor or default (contract 4.12): what clients and other services see. */
export function effectiveSetting(key: InstanceSettingKey, stored: SettingValue | undefined): SettingValue {
	const value = completeSetting(key, stored ?? {});
	if (key === "MEMO_RELATED") {
		if (typeof value.contentLengthLimit !== "number" || value.contentLengthLimit < 8192) value.contentLengthLimit = 8192;
		if (!Array.isArray(value.reactions) || value.reactions.length === 0) value.reactions = structuredClone(SETTING_DEFAULTS.MEMO_RELATED.reactions);
	}
	if (key === "STORAGE" && (typeof value.uploadSizeLimitMb !== "number" || value.uploadSizeLimitMb <= 0)) {
		value.uploadSizeLimitMb = SETTING_DEFAULTS.STORAGE.uploadSizeLimitMb;
	}
	return value;
}

/** The first 4 and last 4 characters of a key, or `...` for short keys (contract 4.12). */
export function apiKeyHint(apiKey: string): string {
	const chars = [...apiKey];
	return chars.length <= 8 ? "..." : `${chars.slice(0, 4).join("")}...${chars.slice(-4).join("")}`;
}

function fieldJson(spec: FieldSpec, value: unknown): unknown {
	switch (spec.kind) {
		case "bool":
			return value === true;
		case "string":
			return spec.secret || typeof value !== "string" ? "" : value;
		case "int32":
		case "float":
			return typeof value === "number" ? value : 0;
		case "int64":
			return toInt64(typeof value === "number" ? value : 0);
		case "enum":
			return typeof value === "string" ? value : spec.names[0];
		case "message":
			return messageJson(spec.fields, value as Record<string, unknown>);
		case "repeated":
			return Array.isArray(value) ? value.map(item => fieldJson(spec.of, item)) : [];
		case "map":
			return Object.fromEntries(Object.entries(isObject(value) ? value : {}).map(([k, v]) => [k, fieldJson(spec.of, v)]));
		case "output":
			return undefined;
	}
}

/** proto3 JSON with defaults emitted (contract 1.3); unset messages and wrappers omitted, secrets "". */
function messageJson(spec: MessageSpec, value: Record<string, unknown>): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [name, fieldSpec] of Object.entries(spec)) {
		const v = value[name];
		if ((fieldSpec.kind === "message" || (fieldSpec.kind === "float" && fieldSpec.optional)) && v === undefined) continue;
		if (fieldSpec.kind === "output") continue;
		out[name] = fieldJson(fieldSpec, v);
	}
	return out;
}

/** Who is reading: non-admins see a reduced AI setting (contract 11.2). */
export type SettingView = "admin" | "member";

/** An InstanceSetting message: `{name, <valueField>: {...}}`, secrets blanked. */
export function toSettingJson(key: InstanceSettingKey, stored: SettingValue | undefined, view: SettingView): Record<string, unknown> {
	const value = effectiveSetting(key, stored);
	const json = messageJson(SETTING_SPECS[key], value);
	if (key === "AI") {
		const providers = (value.providers as SettingValue[]).map((provider, i) => {
			const out = (json.providers as SettingValue[])[i] as SettingValue;
			const apiKey = typeof provider.apiKey === "string" ? provider.apiKey : "";
			if (view === "admin") return { ...out, apiKeySet: apiKey !== "", apiKeyHint: apiKey === "" ? "" : apiKeyHint(apiKey) };
			return { ...out, endpoint: "", apiKeySet: false, apiKeyHint: "" };
		});
		json.providers = providers;
		if (view !== "admin" && isObject(json.transcription)) {
			json.transcription = { ...json.transcription, model: "", language: "", prompt: "" };
		}
	}
	return { name: formatSettingName(key), [VALUE_FIELDS[key]]: json };
}
