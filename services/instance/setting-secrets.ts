import { invalidArgument } from "../../shared/errors.js";
import type { InstanceSettingKey } from "../../shared/names.js";
import type { SettingValue } from "./setting-json.js";
import { SETTING_SPECS, type FieldSpec, type MessageSpec } from "./setting-schema.js";

/**
 * Write-only secrets (contract 4.12, 11.4): clients read them as "" and send "" to keep the
 * stored value. These functions carry stored secrets into a new value before it is checked.
 */

type Obj = Record<string, unknown>;

function asObject(value: unknown): Obj | undefined {
	return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
}

function asList(value: unknown): Obj[] {
	return Array.isArray(value) ? (value as Obj[]) : [];
}

function keepS3Secret(next: Obj | undefined, stored: Obj | undefined): void {
	if (next && next.accessKeySecret === "" && typeof stored?.accessKeySecret === "string") next.accessKeySecret = stored.accessKeySecret;
}

/** The SMTP fields whose change makes a stored password unusable without sending it again. */
export const SMTP_IDENTITY_FIELDS = ["smtpHost", "smtpPort", "smtpUsername", "useTls", "useSsl"] as const;

/**
 * The SMTP password to use for `email`: the one given, else the stored one when the server
 * identity is unchanged; a changed identity with a stored password needs the password again.
 */
export function resolveSmtpPassword(email: Obj, stored: Obj | undefined): string {
	const given = typeof email.smtpPassword === "string" ? email.smtpPassword : "";
	if (given !== "") return given;
	const storedPassword = typeof stored?.smtpPassword === "string" ? stored.smtpPassword : "";
	if (storedPassword === "") return "";
	const unchanged = SMTP_IDENTITY_FIELDS.every(field => (email[field] ?? defaultOf(field)) === (stored?.[field] ?? defaultOf(field)));
	if (!unchanged) throw invalidArgument("email.smtpPassword is required when the SMTP host, port, username or TLS settings change");
	return storedPassword;
}

function defaultOf(field: (typeof SMTP_IDENTITY_FIELDS)[number]): unknown {
	return field === "smtpPort" ? 0 : field === "useTls" || field === "useSsl" ? false : "";
}

/** Copies stored secrets into `next` wherever `next` sends "" (mutates `next`). */
export function keepStoredSecrets(key: InstanceSettingKey, next: SettingValue, stored: SettingValue | undefined): void {
	switch (key) {
		case "STORAGE": {
			keepS3Secret(asObject(next.s3Config), asObject(stored?.s3Config));
			const storedById = new Map(asList(stored?.storages).map(s => [s.id, s]));
			for (const storage of asList(next.storages)) keepS3Secret(asObject(storage.s3Config), asObject(storedById.get(storage.id)?.s3Config));
			return;
		}
		case "NOTIFICATION": {
			const email = asObject(next.email);
			if (email) email.smtpPassword = resolveSmtpPassword(email, asObject(stored?.email));
			return;
		}
		case "AI": {
			const storedById = new Map(asList(stored?.providers).map(p => [p.id, p]));
			for (const provider of asList(next.providers)) {
				const previous = storedById.get(provider.id);
				if (provider.apiKey === "" && provider.id !== "" && typeof previous?.apiKey === "string") provider.apiKey = previous.apiKey;
			}
			return;
		}
		default:
			return;
	}
}

function fieldWithoutSecrets(spec: FieldSpec, value: unknown): unknown {
	switch (spec.kind) {
		case "message": {
			const message = asObject(value);
			return message === undefined ? value : messageWithoutSecrets(spec.fields, message);
		}
		case "repeated":
			return Array.isArray(value) ? value.map(item => fieldWithoutSecrets(spec.of, item)) : value;
		case "map": {
			const map = asObject(value);
			return map === undefined ? value : Object.fromEntries(Object.entries(map).map(([k, v]) => [k, fieldWithoutSecrets(spec.of, v)]));
		}
		default:
			return value;
	}
}

// Only fields the spec names and does not mark secret are kept: a field it does not know cannot be told safe.
function messageWithoutSecrets(spec: MessageSpec, value: Obj): Obj {
	const out: Obj = {};
	for (const [name, item] of Object.entries(value)) {
		const field = spec[name];
		if (field === undefined || (field.kind === "string" && field.secret === true)) continue;
		out[name] = fieldWithoutSecrets(field, item);
	}
	return out;
}

/** A setting value with every write-only secret left out, at any depth: what may leave the service for a caller that needs none. */
export function withoutSecrets(key: InstanceSettingKey, value: SettingValue): SettingValue {
	return messageWithoutSecrets(SETTING_SPECS[key], value);
}
