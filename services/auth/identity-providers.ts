import type { Caller } from "../../shared/caller.js";
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from "../../shared/errors.js";
import { parseUpdateMask } from "../../shared/field-mask.js";
import { resolveId } from "../../shared/ids.js";
import { formatName } from "../../shared/names.js";
import { parseEnum } from "../../shared/proto-json.js";
import { DuplicateKeyError } from "../../shared/store/document-store.js";
import type { AuthDeps } from "./auth-deps.js";
import type { IdpDoc, OAuth2Config } from "./idp-doc.js";
import { requireAdmin } from "./user-access.js";
import { optionalString } from "./user-input.js";

/** IdentityProvider of contract 4.9; the client secret is write-only. */
export function toIdpJson(idp: IdpDoc): Record<string, unknown> {
	const c = idp.oauth2Config;
	return {
		name: formatName("identity-provider", idp._id),
		type: idp.type,
		title: idp.title,
		identifierFilter: idp.identifierFilter,
		config: {
			oauth2Config: {
				clientId: c.clientId,
				clientSecret: "",
				authUrl: c.authUrl,
				tokenUrl: c.tokenUrl,
				userInfoUrl: c.userInfoUrl,
				scopes: [...c.scopes],
				fieldMapping: { ...c.fieldMapping }
			}
		}
	};
}

function object(value: unknown, field: string): Record<string, unknown> {
	if (value === undefined || value === null) return {};
	if (typeof value !== "object" || Array.isArray(value)) throw invalidArgument(`${field} must be an object`);
	return value as Record<string, unknown>;
}

/** A message field by its lowerCamelCase or snake_case JSON name (contract 1.2). */
function get(body: Record<string, unknown>, camel: string): unknown {
	return body[camel] ?? body[camel.replace(/[A-Z]/g, c => `_${c.toLowerCase()}`)];
}

function required(value: unknown, field: string): string {
	const text = optionalString(value, field).trim();
	if (text === "") throw invalidArgument(`${field} is required`);
	return text;
}

function httpUrl(value: unknown, field: string): string {
	const text = required(value, field);
	let url: URL | undefined;
	try {
		url = new URL(text);
	} catch {
		url = undefined;
	}
	if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) throw invalidArgument(`${field} must be an http(s) URL`);
	return text;
}

function parseType(value: unknown): "OAUTH2" {
	const type = parseEnum(value ?? "TYPE_UNSPECIFIED", ["TYPE_UNSPECIFIED", "OAUTH2"] as const, "identityProvider.type");
	if (type !== "OAUTH2") throw invalidArgument("identityProvider.type must be OAUTH2");
	return type;
}

function parseTitle(value: unknown): string {
	const title = required(value, "identityProvider.title");
	if (title.length > 256) throw invalidArgument("identityProvider.title must be at most 256 characters");
	return title;
}

/** An identifier filter is a regular expression, checked as sign-in will use it. */
function parseFilter(value: unknown): string {
	const filter = optionalString(value, "identityProvider.identifierFilter");
	try {
		new RegExp(filter, "u");
	} catch {
		throw invalidArgument("identityProvider.identifierFilter is not a valid regular expression");
	}
	return filter;
}

/** `config.oauth2Config`; an empty `clientSecret` keeps `storedSecret` (update). */
function parseConfig(value: unknown, storedSecret: string): OAuth2Config {
	const config = object(get(object(value, "identityProvider.config"), "oauth2Config"), "identityProvider.config.oauth2Config");
	const f = "identityProvider.config.oauth2Config";
	const scopes = get(config, "scopes") ?? [];
	if (!Array.isArray(scopes) || !scopes.every(s => typeof s === "string")) throw invalidArgument(`${f}.scopes must be a list of strings`);
	const mapping = object(get(config, "fieldMapping"), `${f}.fieldMapping`);
	const secret = optionalString(get(config, "clientSecret"), `${f}.clientSecret`);
	return {
		clientId: required(get(config, "clientId"), `${f}.clientId`),
		clientSecret: required(secret === "" ? storedSecret : secret, `${f}.clientSecret`),
		authUrl: httpUrl(get(config, "authUrl"), `${f}.authUrl`),
		tokenUrl: httpUrl(get(config, "tokenUrl"), `${f}.tokenUrl`),
		userInfoUrl: httpUrl(get(config, "userInfoUrl"), `${f}.userInfoUrl`),
		scopes: scopes as string[],
		fieldMapping: {
			identifier: required(get(mapping, "identifier"), `${f}.fieldMapping.identifier`),
			displayName: optionalString(get(mapping, "displayName"), `${f}.fieldMapping.displayName`),
			email: optionalString(get(mapping, "email"), `${f}.fieldMapping.email`),
			avatarUrl: optionalString(get(mapping, "avatarUrl"), `${f}.fieldMapping.avatarUrl`)
		}
	};
}

async function findIdp(deps: AuthDeps, id: unknown): Promise<IdpDoc> {
	const idp = typeof id === "string" && id !== "" ? await deps.identityProviders.findOne({ _id: id }) : null;
	if (!idp) throw notFound(`identity provider ${String(id)} not found`);
	return idp;
}

export function listIdentityProviders(deps: AuthDeps): Promise<IdpDoc[]> {
	return deps.identityProviders.find({}, { sort: { createTime: 1, _id: 1 } });
}

export function getIdentityProvider(deps: AuthDeps, id: unknown): Promise<IdpDoc> {
	return findIdp(deps, id);
}

export interface CreateIdpParams {
	identityProviderId?: unknown;
	identityProvider?: unknown;
}

export async function createIdentityProvider(deps: AuthDeps, params: CreateIdpParams, caller: Caller | null | undefined): Promise<IdpDoc> {
	requireAdmin(caller);
	const body = object(params.identityProvider, "identityProvider");
	const id = resolveId(optionalString(params.identityProviderId, "identityProviderId"), "identityProviderId", "identity-provider");
	const idp: IdpDoc = {
		_id: id,
		type: parseType(body.type),
		title: parseTitle(body.title),
		identifierFilter: parseFilter(get(body, "identifierFilter")),
		oauth2Config: parseConfig(body.config, ""),
		createTime: deps.now()
	};
	try {
		await deps.identityProviders.insert(idp);
	} catch (err) {
		if (err instanceof DuplicateKeyError) throw alreadyExists(`identity provider ${id} already exists`);
		throw err;
	}
	return idp;
}

export interface UpdateIdpParams {
	identityProvider?: unknown;
	updateMask?: unknown;
	patch?: unknown;
}

/** Only top-level paths (contract 10): `config` is replaced whole, except an empty secret. */
export async function updateIdentityProvider(deps: AuthDeps, params: UpdateIdpParams, caller: Caller | null | undefined): Promise<IdpDoc> {
	requireAdmin(caller);
	const idp = await findIdp(deps, params.identityProvider);
	if (params.updateMask !== undefined && typeof params.updateMask !== "string") throw invalidArgument("updateMask must be a string");
	const paths = parseUpdateMask(params.updateMask, ["title", "identifier_filter", "config", "type"], { required: true });
	const body = object(params.patch, "identityProvider");
	const set: Partial<IdpDoc> = {};
	for (const path of paths) {
		if (path === "title") set.title = parseTitle(body.title);
		else if (path === "identifier_filter") set.identifierFilter = parseFilter(get(body, "identifierFilter"));
		else if (path === "type") set.type = parseType(body.type);
		else set.oauth2Config = parseConfig(body.config, idp.oauth2Config.clientSecret);
	}
	const updated = await deps.identityProviders.findOneAndUpdate({ _id: idp._id }, { $set: set });
	if (!updated) throw notFound(`identity provider ${idp._id} not found`);
	return updated;
}

export async function deleteIdentityProvider(deps: AuthDeps, id: unknown, caller: Caller | null | undefined): Promise<void> {
	requireAdmin(caller);
	const idp = await findIdp(deps, id);
	if ((await deps.general()).disallowPasswordAuth === true && (await deps.identityProviders.count({})) <= 1) {
		throw failedPrecondition("password sign-in is disallowed: the last identity provider cannot be deleted");
	}
	await deps.identityProviders.remove({ _id: idp._id });
	await deps.userLinks.remove({ idpId: idp._id }, { multi: true });
}
