import { invalidArgument } from "./errors.js";
import { ID_PATTERN } from "./ids.js";

/**
 * Resource names of contract 1.4. Every id segment is checked against ID_PATTERN: client-chosen
 * ids and usernames must match it, and generated ids, reaction ids and share tokens always do,
 * so a segment that does not match cannot name anything and is a malformed name.
 */

const COLLECTIONS = {
	user: "users",
	memo: "memos",
	attachment: "attachments",
	space: "spaces",
	"identity-provider": "identity-providers"
} as const;

export type NameKind = keyof typeof COLLECTIONS;

export const INSTANCE_SETTING_KEYS = [
	"GENERAL",
	"STORAGE",
	"MEMO_RELATED",
	"TAGS",
	"NOTIFICATION",
	"AI",
	"ACCESS"
] as const;

export type InstanceSettingKey = (typeof INSTANCE_SETTING_KEYS)[number];

const SETTINGS_PREFIX = "instance/settings/";

/**
 * Checks `name` against a template such as `memos/{memo}/reactions/{reaction}` and returns
 * its id segments in order. The template doubles as the form quoted in the error.
 */
function matchTemplate(name: string, template: string, field: string): string[] {
	const expected = template.split("/");
	const segments = name.split("/");
	const malformed = () => invalidArgument(`${field} must be a resource name of the form ${template}`);
	if (segments.length !== expected.length) throw malformed();
	const ids: string[] = [];
	for (const [i, literal] of expected.entries()) {
		const segment = segments[i];
		if (literal.startsWith("{")) {
			if (!ID_PATTERN.test(segment)) throw malformed();
			ids.push(segment);
		} else if (segment !== literal) {
			throw malformed();
		}
	}
	return ids;
}

export function formatName(kind: NameKind, id: string): string {
	return `${COLLECTIONS[kind]}/${id}`;
}

/** The id in `{collection}/{id}`; anything else is INVALID_ARGUMENT naming `field`. */
export function parseName(kind: NameKind, name: string, field: string): string {
	const [id] = matchTemplate(name, `${COLLECTIONS[kind]}/{${kind}}`, field);
	return id;
}

export function formatReactionName(memo: string, reaction: string): string {
	return `memos/${memo}/reactions/${reaction}`;
}

export function parseReactionName(name: string, field: string): { memo: string; reaction: string } {
	const [memo, reaction] = matchTemplate(name, "memos/{memo}/reactions/{reaction}", field);
	return { memo, reaction };
}

export function formatShareName(memo: string, share: string): string {
	return `memos/${memo}/shares/${share}`;
}

export function parseShareName(name: string, field: string): { memo: string; share: string } {
	const [memo, share] = matchTemplate(name, "memos/{memo}/shares/{share}", field);
	return { memo, share };
}

export function formatMemberName(space: string, username: string): string {
	return `spaces/${space}/members/${username}`;
}

export function parseMemberName(name: string, field: string): { space: string; username: string } {
	const [space, username] = matchTemplate(name, "spaces/{space}/members/{username}", field);
	return { space, username };
}

/** A setting key as a route gives it: matched case-insensitively, returned upper-case (contract 11.1). */
export function parseSettingKey(raw: string, field: string): InstanceSettingKey {
	// ASCII only: toUpperCase maps some non-ASCII letters onto ASCII ones ("ı" to "I", "ſ" to "S").
	const key = /^[A-Za-z_]+$/.test(raw)
		? INSTANCE_SETTING_KEYS.find((candidate) => candidate === raw.toUpperCase())
		: undefined;
	if (key === undefined) {
		throw invalidArgument(`${field}: unknown instance setting key; expected one of ${INSTANCE_SETTING_KEYS.join(", ")}`);
	}
	return key;
}

export function formatSettingName(key: InstanceSettingKey): string {
	return `${SETTINGS_PREFIX}${key}`;
}

export function parseSettingName(name: string, field: string): InstanceSettingKey {
	const rest = name.startsWith(SETTINGS_PREFIX) ? name.slice(SETTINGS_PREFIX.length) : "";
	if (rest === "" || rest.includes("/")) {
		throw invalidArgument(`${field} must be a resource name of the form ${SETTINGS_PREFIX}{KEY}`);
	}
	return parseSettingKey(rest, field);
}
