import { invalidArgument } from "../../shared/errors.js";
import { parseHttpUrl } from "../../shared/free-form.js";
import { generateId } from "../../shared/ids.js";
import type { InstanceSettingKey } from "../../shared/names.js";
import type { SettingValue } from "./setting-json.js";

/**
 * The rules of contract 11.4 on a complete setting value (secrets already carried over from
 * the stored value). Normalises in place (generated provider ids, default endpoints) and
 * throws INVALID_ARGUMENT on the first violation, before anything is stored.
 */

type Obj = Record<string, unknown>;

export const OPENAI_DEFAULT_ENDPOINT = "https://api.openai.com/v1";

const list = (value: unknown): Obj[] => (Array.isArray(value) ? (value as Obj[]) : []);
const text = (value: unknown): string => (typeof value === "string" ? value : "");
const chars = (value: string): number => [...value].length;

function checkGeneral(value: SettingValue): void {
	const offset = value.weekStartDayOffset as number;
	if (offset < 0 || offset > 6) throw invalidArgument("generalSetting.weekStartDayOffset must be between 0 (Sunday) and 6");
}

function checkStorage(value: SettingValue): void {
	if (value.storageType === "STORAGE_TYPE_UNSPECIFIED") value.storageType = "LOCAL";
	if ((value.uploadSizeLimitMb as number) < 0) throw invalidArgument("storageSetting.uploadSizeLimitMb must not be negative");
	const ids = new Set<string>();
	for (const [i, storage] of list(value.storages).entries()) {
		const id = text(storage.id);
		if (id === "") throw invalidArgument(`storageSetting.storages[${i}].id must not be empty`);
		if (ids.has(id)) throw invalidArgument(`storageSetting.storages[${i}].id ${JSON.stringify(id)} is used twice`);
		ids.add(id);
		if (storage.type === "STORAGE_TYPE_UNSPECIFIED") throw invalidArgument(`storageSetting.storages[${i}].type must be DATABASE, LOCAL or S3`);
	}
	const defaultId = text(value.defaultStorageId);
	if (defaultId !== "" && !ids.has(defaultId)) throw invalidArgument("storageSetting.defaultStorageId must name one of the storages");
}

function checkMemoRelated(value: SettingValue): void {
	if ((value.contentLengthLimit as number) < 0) throw invalidArgument("memoRelatedSetting.contentLengthLimit must not be negative");
	for (const [i, reaction] of list(value.reactions).entries()) {
		const bytes = Buffer.byteLength(reaction as unknown as string);
		if (bytes < 1 || bytes > 64) throw invalidArgument(`memoRelatedSetting.reactions[${i}] must be 1-64 bytes`);
	}
}

function checkTags(value: SettingValue): void {
	for (const [pattern, meta] of Object.entries(value.tags as Record<string, Obj>)) {
		const field = `tagsSetting.tags[${JSON.stringify(pattern)}]`;
		if (pattern === "") throw invalidArgument(`${field}: the tag pattern must not be empty`);
		try {
			new RegExp(`^(?:${pattern})$`);
		} catch {
			throw invalidArgument(`${field}: the tag pattern is not a valid regular expression`);
		}
		const color = meta.backgroundColor as Obj | undefined;
		for (const component of ["red", "green", "blue", "alpha"]) {
			const c = color?.[component];
			if (c === undefined) continue;
			if (typeof c !== "number" || !(c >= 0 && c <= 1)) throw invalidArgument(`${field}.backgroundColor.${component} must be between 0 and 1`);
		}
	}
}

function checkNotification(value: SettingValue): void {
	const email = value.email as Obj | undefined;
	if (email === undefined) return;
	const port = email.smtpPort as number;
	if (port < 1 || port > 65535) throw invalidArgument("notificationSetting.email.smtpPort must be between 1 and 65535");
}

function checkAi(value: SettingValue, newId: () => string): void {
	const ids = new Set<string>();
	for (const [i, provider] of list(value.providers).entries()) {
		const field = `aiSetting.providers[${i}]`;
		if (text(provider.id) === "") provider.id = newId();
		const id = text(provider.id);
		if (ids.has(id)) throw invalidArgument(`${field}.id ${JSON.stringify(id)} is used twice`);
		ids.add(id);
		if (text(provider.title).trim() === "") throw invalidArgument(`${field}.title must not be empty`);
		if (provider.type !== "OPENAI" && provider.type !== "GEMINI") throw invalidArgument(`${field}.type must be OPENAI or GEMINI`);
		if (text(provider.apiKey) === "") throw invalidArgument(`${field}.apiKey is required (none is stored for this provider)`);
		if (provider.type === "OPENAI" && text(provider.endpoint) === "") provider.endpoint = OPENAI_DEFAULT_ENDPOINT;
		if (text(provider.endpoint) !== "" && parseHttpUrl(text(provider.endpoint)) === null) throw invalidArgument(`${field}.endpoint must be an http(s) URL`);
	}
	const transcription = value.transcription as Obj | undefined;
	if (transcription === undefined) return;
	const providerId = text(transcription.providerId);
	if (providerId !== "" && !ids.has(providerId)) throw invalidArgument("aiSetting.transcription.providerId must name a configured provider");
	if (chars(text(transcription.model)) > 256) throw invalidArgument("aiSetting.transcription.model must be at most 256 characters");
	if (chars(text(transcription.language)) > 32) throw invalidArgument("aiSetting.transcription.language must be at most 32 characters");
	if (chars(text(transcription.prompt)) > 4096) throw invalidArgument("aiSetting.transcription.prompt must be at most 4096 characters");
}

function checkAccess(value: SettingValue): void {
	if (value.accessMode !== "INSTANCE_ACCESS_MODE_PRIVATE" && value.accessMode !== "INSTANCE_ACCESS_MODE_PUBLIC") {
		throw invalidArgument("accessSetting.accessMode must be INSTANCE_ACCESS_MODE_PRIVATE or INSTANCE_ACCESS_MODE_PUBLIC");
	}
}

export function validateSetting(key: InstanceSettingKey, value: SettingValue, newId: () => string = generateId): void {
	switch (key) {
		case "GENERAL":
			return checkGeneral(value);
		case "STORAGE":
			return checkStorage(value);
		case "MEMO_RELATED":
			return checkMemoRelated(value);
		case "TAGS":
			return checkTags(value);
		case "NOTIFICATION":
			return checkNotification(value);
		case "AI":
			return checkAi(value, newId);
		case "ACCESS":
			return checkAccess(value);
	}
}
