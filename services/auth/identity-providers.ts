import type { Caller } from "../../shared/caller.js";
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from "../../shared/errors.js";
import { parseUpdateMask } from "../../shared/field-mask.js";
import { parseHttpUrl } from "../../shared/free-form.js";
import { resolveId } from "../../shared/ids.js";
import { formatName } from "../../shared/names.js";
import { enumOf, fieldOf, messageOf, stringOf } from "../../shared/request-message.js";
import { DuplicateKeyError } from "../../shared/store/document-store.js";
import type { AuthDeps } from "./auth-deps.js";
import type { IdpDoc, OAuth2Config } from "./idp-doc.js";
import { requireAdmin } from "./user-access.js";

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

function required(value: unknown, field: string): string {
	const text = stringOf(value, field).trim();
	if (text === "") throw invalidArgument(`${field} is required`);
	return text;
}

function httpUrl(value: unknown, field: string): string {
	const text = required(value, field);
	if (parseHttpUrl(text) === null) throw invalidArgument(`${field} must be an http(s) URL`);
	return text;
}

function parseType(value: unknown): "OAUTH2" {
	const type = enumOf(value, ["TYPE_UNSPECIFIED", "OAUTH2"] as const, "identityProvider.type");
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
	const filter = stringOf(value, "identityProvider.identifierFilter");
	try {
		new RegExp(filter, "u");
	} catch {
		throw invalidArgument("identityProvider.identifierFilter is not a valid regular expression");
	}
	return filter;
}

/** `config.oauth2Config`; an empty `clientSecret` keeps `storedSecret` (update). */
function parseConfig(value: unknown, storedSecret: string): OAuth2Config {
	const config = messageOf(fieldOf(messageOf(value, "identityProvider.config"), "oauth2Config"), "identityProvider.config.oauth2Config");
	const f = "identityProvider.config.oauth2Config";
	const scopes = fieldOf(config, "scopes") ?? [];
	if (!Array.isArray(scopes) || !scopes.every(s => typeof s === "string")) throw invalidArgument(`${f}.scopes must be a list of strings`);
	const mapping = messageOf(fieldOf(config, "fieldMapping"), `${f}.fieldMapping`);
	const secret = stringOf(fieldOf(config, "clientSecret"), `${f}.clientSecret`);
	return {
		clientId: required(fieldOf(config, "clientId"), `${f}.clientId`),
		clientSecret: required(secret === "" ? storedSecret : secret, `${f}.clientSecret`),
		authUrl: httpUrl(fieldOf(config, "authUrl"), `${f}.authUrl`),
		tokenUrl: httpUrl(fieldOf(config, "tokenUrl"), `${f}.tokenUrl`),
		userInfoUrl: httpUrl(fieldOf(config, "userInfoUrl"), `${f}.userInfoUrl`),
		scopes: scopes as string[],
		fieldMapping: {
			identifier: required(fieldOf(mapping, "identifier"), `${f}.fieldMapping.identifier`),
			displayName: stringOf(fieldOf(mapping, "displayName"), `${f}.fieldMapping.displayName`),
			email: stringOf(fieldOf(mapping, "email"), `${f}.fieldMapping.email`),
			avatarUrl: stringOf(fieldOf(mapping, "avatarUrl"), `${f}.fieldMapping.avatarUrl`)
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
	const body = messageOf(params.identityProvider, "identityProvider");
	const id = resolveId(stringOf(params.identityProviderId, "identityProviderId"), "identityProviderId", "identity-provider");
	const idp: IdpDoc = {
		_id: id,
		type: parseType(fieldOf(body, "type")),
		title: parseTitle(fieldOf(body, "title")),
		identifierFilter: parseFilter(fieldOf(body, "identifierFilter")),
		oauth2Config: parseConfig(fieldOf(body, "config"), ""),
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
	const body = messageOf(params.patch, "identityProvider");
	const set: Partial<IdpDoc> = {};
	for (const path of paths) {
		if (path === "title") set.title = parseTitle(fieldOf(body, "title"));
		else if (path === "identifier_filter") set.identifierFilter = parseFilter(fieldOf(body, "identifierFilter"));
		else if (path === "type") set.type = parseType(fieldOf(body, "type"));
		else set.oauth2Config = parseConfig(fieldOf(body, "config"), idp.oauth2Config.clientSecret);
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
