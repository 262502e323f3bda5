import { invalidArgument, permissionDenied, unavailable } from "../../shared/errors.js";
import { ID_PATTERN, generateId, generateUuid } from "../../shared/ids.js";
import { parseName } from "../../shared/names.js";
import { fieldOf, stringOf, type JsonMessage } from "../../shared/request-message.js";
import { DuplicateKeyError } from "../../shared/store/document-store.js";
import type { AuthDeps } from "./auth-deps.js";
import type { IdpDoc } from "./idp-doc.js";
import { UNUSABLE_PASSWORD_HASH } from "./passwords.js";
import { checkAvatarUrl, checkEmail } from "./user-input.js";
import type { UserDoc } from "./user-doc.js";

/** Contract 14: every call to a provider. */
export const SSO_TIMEOUT_MS = 10_000;
// A token or userinfo answer is a few kilobytes; more is not a provider we can talk to.
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface SsoOptions {
	timeoutMs: number;
}

interface ProviderAnswer {
	status: number;
	contentType: string;
	text: string;
}

/** One HTTP exchange with the provider; unreachable, timed out or 5xx is UNAVAILABLE (contract 2.3). */
async function callProvider(url: string, init: RequestInit, what: string, options: SsoOptions): Promise<ProviderAnswer> {
	let res: Response;
	let text: string;
	try {
		res = await fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(options.timeoutMs) });
		text = await res.text();
	} catch {
		throw unavailable(`identity provider ${what} is unreachable`);
	}
	if (res.status >= 500) throw unavailable(`identity provider ${what} failed (HTTP ${res.status})`);
	if (Buffer.byteLength(text) > MAX_ANSWER_BYTES) throw invalidArgument(`identity provider ${what} answer is too large`);
	return { status: res.status, contentType: res.headers.get("content-type") ?? "", text };
}

/** The provider's access token: JSON, or form-encoded as some providers answer. */
function accessTokenOf(answer: ProviderAnswer): string | undefined {
	try {
		const json: unknown = JSON.parse(answer.text);
		if (typeof json === "object" && json !== null) {
			const token = (json as Record<string, unknown>).access_token;
			return typeof token === "string" && token !== "" ? token : undefined;
		}
	} catch {
		// Not JSON: read it as a form below.
	}
	return new URLSearchParams(answer.text).get("access_token") || undefined;
}

async function exchangeCode(idp: IdpDoc, code: string, redirectUri: string, codeVerifier: string, options: SsoOptions): Promise<string> {
	const config = idp.oauth2Config;
	const form = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, client_id: config.clientId, client_secret: config.clientSecret });
	if (codeVerifier !== "") form.set("code_verifier", codeVerifier);
	const answer = await callProvider(config.tokenUrl, {
		method: "POST",
		headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
		body: form.toString()
	}, "token endpoint", options);
	if (answer.status >= 400) throw invalidArgument(`identity provider rejected the code (HTTP ${answer.status})`);
	const token = answer.status < 300 ? accessTokenOf(answer) : undefined;
	if (token === undefined) throw invalidArgument("identity provider returned no access token");
	return token;
}

async function fetchClaims(idp: IdpDoc, token: string, options: SsoOptions): Promise<Record<string, unknown>> {
	const answer = await callProvider(idp.oauth2Config.userInfoUrl, { headers: { Authorization: `Bearer ${token}`, Accept: "application/json" } }, "userinfo endpoint", options);
	if (answer.status >= 300) throw invalidArgument(`identity provider refused the userinfo request (HTTP ${answer.status})`);
	let claims: unknown;
	try {
		claims = JSON.parse(answer.text);
	} catch {
		throw invalidArgument("identity provider userinfo is not JSON");
	}
	if (typeof claims !== "object" || claims === null || Array.isArray(claims)) throw invalidArgument("identity provider userinfo is not a JSON object");
	return claims as Record<string, unknown>;
}

export interface ExternalUser {
	identifier: string;
	displayName: string;
	email: string;
	avatarUrl: string;
}

function claimString(claims: Record<string, unknown>, key: string): string {
	const value = key === "" ? undefined : claims[key];
	return typeof value === "string" ? value : "";
}

/** Contract 2.3 step 3: the mapping of a provider's claims onto a user. */
export function mapClaims(claims: Record<string, unknown>, mapping: IdpDoc["oauth2Config"]["fieldMapping"]): ExternalUser {
	const raw = claims[mapping.identifier];
	const identifier = typeof raw === "string" ? raw.trim() : typeof raw === "number" && Number.isFinite(raw) ? String(raw) : "";
	if (identifier === "") throw invalidArgument(`identity provider userinfo lacks the identifier claim "${mapping.identifier}"`);
	const lenient = (check: (v: unknown, f: string) => string, value: string): string => {
		try {
			return check(value, "claim");
		} catch {
			return "";
		}
	};
	return {
		identifier,
		displayName: claimString(claims, mapping.displayName).slice(0, 256) || identifier,
		email: lenient(checkEmail, claimString(claims, mapping.email)),
		avatarUrl: lenient(checkAvatarUrl, claimString(claims, mapping.avatarUrl))
	};
}

function matchesFilter(filter: string, identifier: string): boolean {
	if (filter === "") return true;
	try {
		return new RegExp(filter, "u").test(identifier);
	} catch {
		return false;
	}
}

/** A new USER for a first SSO sign-in, linked to the external account (contract 2.3 step 4). */
async function createLinkedUser(deps: AuthDeps, idp: IdpDoc, external: ExternalUser): Promise<UserDoc> {
	if ((await deps.general()).disallowUserRegistration === true) throw permissionDenied("user registration is not allowed");
	const preferred = ID_PATTERN.test(external.identifier) && !(await deps.users.findOne({ username: external.identifier })) ? external.identifier : generateUuid();
	const now = deps.now();
	const user: UserDoc = {
		_id: generateId(),
		username: preferred,
		role: "USER",
		state: "NORMAL",
		email: external.email,
		displayName: external.displayName,
		avatarUrl: external.avatarUrl,
		description: "",
		passwordHash: UNUSABLE_PASSWORD_HASH,
		createTime: now,
		updateTime: now
	};
	try {
		await deps.users.insert(user);
	} catch (err) {
		// The identifier was free a moment ago: someone took it meanwhile.
		if (!(err instanceof DuplicateKeyError)) throw err;
		user.username = generateUuid();
		await deps.users.insert(user);
	}
	// Without transactions the link is the commit point: of two concurrent first sign-ins of
	// one account, the one whose link lands keeps its user, the other removes its own.
	try {
		await deps.userLinks.insert({ _id: generateId(), idpId: idp._id, identifier: external.identifier, userId: user._id });
		return user;
	} catch (err) {
		await deps.users.remove({ _id: user._id });
		if (!(err instanceof DuplicateKeyError)) throw err;
		const winner = await deps.userLinks.findOne({ idpId: idp._id, identifier: external.identifier });
		const linked = winner ? await deps.users.findOne({ _id: winner.userId }) : null;
		if (!linked) throw unavailable("sign-in raced with another; try again");
		return linked;
	}
}

/** The provider account behind SSO credentials: the code exchanged, the claims mapped and the identifier filter applied (contract 2.3 steps 1-3). */
export async function resolveSsoIdentity(
	deps: AuthDeps,
	credentials: JsonMessage,
	options: SsoOptions,
	field: string
): Promise<{ idp: IdpDoc; external: ExternalUser }> {
	const idpName = fieldOf(credentials, "idpName");
	const code = fieldOf(credentials, "code");
	if (typeof idpName !== "string") throw invalidArgument(`${field}idpName is required`);
	const idpId = parseName("identity-provider", idpName, `${field}idpName`);
	if (typeof code !== "string" || code === "") throw invalidArgument(`${field}code is required`);
	const redirectUri = stringOf(fieldOf(credentials, "redirectUri"), `${field}redirectUri`);
	const codeVerifier = stringOf(fieldOf(credentials, "codeVerifier"), `${field}codeVerifier`);
	const idp = await deps.identityProviders.findOne({ _id: idpId });
	if (!idp) throw invalidArgument(`identity provider ${idpName} does not exist`);

	const token = await exchangeCode(idp, code, redirectUri, codeVerifier, options);
	const external = mapClaims(await fetchClaims(idp, token, options), idp.oauth2Config.fieldMapping);
	if (!matchesFilter(idp.identifierFilter, external.identifier)) throw permissionDenied("identifier is not allowed by the identity provider's filter");
	return { idp, external };
}

/** SignIn with SSO credentials against an OAuth2 provider (contract 2.3): the user linked to the account comes before any other match (contract 16). */
export async function signInWithSso(deps: AuthDeps, credentials: JsonMessage, options: SsoOptions): Promise<UserDoc> {
	const { idp, external } = await resolveSsoIdentity(deps, credentials, options, "ssoCredentials.");
	const link = await deps.userLinks.findOne({ idpId: idp._id, identifier: external.identifier });
	if (link) {
		const user = await deps.users.findOne({ _id: link.userId });
		if (user) return user;
		await deps.userLinks.remove({ _id: link._id });
	}
	return createLinkedUser(deps, idp, external);
}
