import type { Caller } from "../../shared/caller.js";
import { invalidArgument, permissionDenied } from "../../shared/errors.js";
import { parseUpdateMask } from "../../shared/field-mask.js";
import { parseBool } from "../../shared/proto-json.js";
import { enumOf, fieldOf, messageOf, stringOf, type JsonMessage } from "../../shared/request-message.js";
import type { Collection, Doc } from "../../shared/store/document-store.js";
import { findByUsername } from "./user-access.js";
import type { UserDoc } from "./user-doc.js";
import { toWebhookJson, webhooksOf } from "./webhooks/user-webhooks.js";
import type { WebhookDoc } from "./webhooks/webhook-doc.js";

/**
 * User settings (contract 16, upstream v0.30.0 UserSetting): GENERAL (locale, memo visibility,
 * theme), TAGS (display rules per tag pattern) and WEBHOOKS (the user's webhooks, read-only here:
 * they have their own operations, webhooks/user-webhooks.ts). A setting never stored reads as its default.
 */

export const USER_SETTING_KEYS = ["GENERAL", "WEBHOOKS", "TAGS"] as const;
type UserSettingKey = (typeof USER_SETTING_KEYS)[number];

export interface GeneralUserSetting {
	locale: string;
	memoVisibility: string;
	theme: string;
}

/**
 * One stored setting (`_id` = `<userId>/<KEY>`). The value is kept as JSON text: tag patterns
 * are map keys holding `.` and `$`, which document stores refuse as field names.
 */
export interface UserSettingDoc extends Doc {
	userId: string;
	key: UserSettingKey;
	value: string;
}

export const USER_SETTINGS = "auth_user_settings";

export interface UserSettingsDeps {
	users: Collection<UserDoc>;
	userSettings: Collection<UserSettingDoc>;
	webhooks: Collection<WebhookDoc>;
}

const GENERAL_DEFAULT: GeneralUserSetting = { locale: "en", memoVisibility: "PRIVATE", theme: "" };
/** A user may choose these as their default; SPACE needs a space, which a default cannot name. */
export const DEFAULT_VISIBILITIES = ["PRIVATE", "PROTECTED", "PUBLIC"] as const;
const GENERAL_PATHS = ["locale", "memo_visibility", "theme"] as const;
const MAX_SHORT_TEXT = 64;
const MAX_TAG_RULES = 256;
const MAX_TAG_PATTERN = 256;

const VALUE_FIELD: Record<UserSettingKey, string> = { GENERAL: "generalSetting", WEBHOOKS: "webhooksSetting", TAGS: "tagsSetting" };

/** The settings kept in the settings collection; WEBHOOKS is made of the webhooks themselves. */
type StoredKey = Exclude<UserSettingKey, "WEBHOOKS">;

function defaultValue(key: StoredKey): JsonMessage {
	return key === "GENERAL" ? { ...GENERAL_DEFAULT } : { tags: {} };
}

/** A `{setting}` path segment, case-insensitive (as instance setting keys, contract 11.1). */
function keyOf(raw: unknown): UserSettingKey {
	const key = typeof raw === "string" && /^[A-Za-z_]+$/.test(raw) ? USER_SETTING_KEYS.find(candidate => candidate === raw.toUpperCase()) : undefined;
	if (key === undefined) throw invalidArgument(`setting: unknown user setting key; expected one of ${USER_SETTING_KEYS.join(", ")}`);
	return key;
}

async function stored(deps: UserSettingsDeps, userId: string, key: StoredKey): Promise<JsonMessage> {
	const doc = await deps.userSettings.findOne({ _id: `${userId}/${key}` });
	return doc ? { ...defaultValue(key), ...(JSON.parse(doc.value) as JsonMessage) } : defaultValue(key);
}

/** A setting as the user reads it: WEBHOOKS lists their webhooks (upstream), the others are stored values. */
async function settingValue(deps: UserSettingsDeps, user: UserDoc, key: UserSettingKey): Promise<JsonMessage> {
	if (key !== "WEBHOOKS") return stored(deps, user._id, key);
	return { webhooks: (await webhooksOf(deps.webhooks, user._id)).map(webhook => toWebhookJson(user.username, webhook)) };
}

function toSettingJson(username: string, key: UserSettingKey, value: JsonMessage): Record<string, unknown> {
	return { name: `users/${username}/settings/${key}`, [VALUE_FIELD[key]]: value };
}

/** The user themself, or an ADMIN when only reading. */
async function settingsOwner(deps: UserSettingsDeps, username: unknown, caller: Caller, write: boolean): Promise<UserDoc> {
	const user = await findByUsername(deps.users, username);
	if (caller.id !== user._id && (write || caller.role !== "ADMIN")) throw permissionDenied("only the user themself may change their settings");
	return user;
}

export async function getUserSetting(deps: UserSettingsDeps, params: { user?: unknown; setting?: unknown }, caller: Caller): Promise<Record<string, unknown>> {
	const user = await settingsOwner(deps, params.user, caller, false);
	const key = keyOf(params.setting);
	return toSettingJson(user.username, key, await settingValue(deps, user, key));
}

export async function listUserSettings(deps: UserSettingsDeps, params: { user?: unknown }, caller: Caller): Promise<Record<string, unknown>> {
	const user = await settingsOwner(deps, params.user, caller, false);
	const settings = await Promise.all(USER_SETTING_KEYS.map(async key => toSettingJson(user.username, key, await settingValue(deps, user, key))));
	return { settings, nextPageToken: "" };
}

function shortText(value: unknown, field: string): string {
	const text = value === undefined || value === null ? "" : stringOf(value, field);
	if (text.length > MAX_SHORT_TEXT) throw invalidArgument(`${field} must be at most ${MAX_SHORT_TEXT} characters`);
	return text;
}

function parseGeneral(current: JsonMessage, body: JsonMessage, paths: readonly string[]): JsonMessage {
	const next = { ...current };
	for (const path of paths) {
		const value = fieldOf(body, path);
		if (path === "memo_visibility") next.memoVisibility = enumOf(value, DEFAULT_VISIBILITIES, "generalSetting.memoVisibility");
		else if (path === "locale") next.locale = shortText(value, "generalSetting.locale");
		else next.theme = shortText(value, "generalSetting.theme");
	}
	return next;
}

function colorComponent(value: unknown, field: string): number {
	if (value === undefined || value === null) return 0;
	if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1) throw invalidArgument(`${field} must be a number from 0 to 1`);
	return value;
}

/** TagsSetting: each key an anchored regular expression, each value a TagMetadata. */
function parseTags(body: JsonMessage): JsonMessage {
	const tags = messageOf(fieldOf(body, "tags") ?? {}, "tagsSetting.tags");
	const entries = Object.entries(tags);
	if (entries.length > MAX_TAG_RULES) throw invalidArgument(`tagsSetting.tags: at most ${MAX_TAG_RULES} tag rules`);
	const out: Record<string, JsonMessage> = {};
	for (const [pattern, raw] of entries) {
		const field = `tagsSetting.tags[${JSON.stringify(pattern)}]`;
		if (pattern.trim() === "" || pattern.length > MAX_TAG_PATTERN) throw invalidArgument(`${field}: a tag pattern must be 1-${MAX_TAG_PATTERN} characters`);
		try {
			new RegExp(`^(?:${pattern})$`, "u");
		} catch {
			throw invalidArgument(`${field}: not a valid regular expression`);
		}
		const metadata = messageOf(raw, field);
		const rule: JsonMessage = {};
		const color = fieldOf(metadata, "background_color");
		if (color !== undefined && color !== null) {
			const c = messageOf(color, `${field}.backgroundColor`);
			rule.backgroundColor = {
				red: colorComponent(fieldOf(c, "red"), `${field}.backgroundColor.red`),
				green: colorComponent(fieldOf(c, "green"), `${field}.backgroundColor.green`),
				blue: colorComponent(fieldOf(c, "blue"), `${field}.backgroundColor.blue`),
				...(fieldOf(c, "alpha") === undefined ? {} : { alpha: colorComponent(fieldOf(c, "alpha"), `${field}.backgroundColor.alpha`) })
			};
		}
		const blur = fieldOf(metadata, "blur_content");
		if (blur !== undefined && blur !== null) rule.blurContent = parseBool(blur, `${field}.blurContent`);
		out[pattern] = rule;
	}
	return { tags: out };
}

export interface UpdateUserSettingParams {
	user?: unknown;
	setting?: unknown;
	updateMask?: unknown;
	patch?: unknown;
}

/** UpdateUserSetting: GENERAL by `memo_visibility`, `locale`, `theme`; TAGS by `tags` (replaced whole). */
export async function updateUserSetting(deps: UserSettingsDeps, params: UpdateUserSettingParams, caller: Caller): Promise<Record<string, unknown>> {
	const user = await settingsOwner(deps, params.user, caller, true);
	const key = keyOf(params.setting);
	if (key === "WEBHOOKS") throw invalidArgument("the WEBHOOKS setting is changed through the webhook operations, not UpdateUserSetting");
	if (params.updateMask !== undefined && typeof params.updateMask !== "string") throw invalidArgument("updateMask must be a string");
	const body = messageOf(params.patch, "setting");
	const paths = parseUpdateMask(params.updateMask, key === "GENERAL" ? GENERAL_PATHS : ["tags"], { required: true });
	const valueField = key === "GENERAL" ? "general_setting" : "tags_setting";
	const given = fieldOf(body, valueField);
	if (given === undefined || given === null) throw invalidArgument(`setting.${VALUE_FIELD[key]} is required`);
	const incoming = messageOf(given, `setting.${VALUE_FIELD[key]}`);
	const value = key === "GENERAL" ? parseGeneral(await stored(deps, user._id, key), incoming, paths) : parseTags(incoming);
	await deps.userSettings.update({ _id: `${user._id}/${key}` }, { $set: { userId: user._id, key, value: JSON.stringify(value) } }, { upsert: true });
	return toSettingJson(user.username, key, value);
}

/** GENERAL `memoVisibility` of a user: the visibility of their new memos when they name none (contract 16). */
export async function defaultMemoVisibility(deps: UserSettingsDeps, userId: string): Promise<string> {
	const general = await stored(deps, userId, "GENERAL");
	return typeof general.memoVisibility === "string" && general.memoVisibility !== "" ? general.memoVisibility : GENERAL_DEFAULT.memoVisibility;
}
