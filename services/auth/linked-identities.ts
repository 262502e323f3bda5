import type { Caller } from "../../shared/caller.js";
import { alreadyExists, notFound, permissionDenied } from "../../shared/errors.js";
import { generateId } from "../../shared/ids.js";
import type { JsonMessage } from "../../shared/request-message.js";
import { DuplicateKeyError } from "../../shared/store/document-store.js";
import type { AuthDeps } from "./auth-deps.js";
import type { UserLinkDoc } from "./idp-doc.js";
import { resolveSsoIdentity, type SsoOptions } from "./sso.js";
import { findByUsername } from "./user-access.js";
import type { UserDoc } from "./user-doc.js";

/**
 * Linked identities (contract 16, upstream v0.30.0): a user's accounts at identity providers,
 * the links SSO sign-in follows. A user has at most one per provider, so the provider's id is
 * the identity's id: `users/{user}/linkedIdentities/{idp}`.
 */

export function toLinkedIdentityJson(username: string, link: UserLinkDoc): Record<string, unknown> {
	return { name: `users/${username}/linkedIdentities/${link.idpId}`, idpName: `identity-providers/${link.idpId}`, externUid: link.identifier };
}

/** The user of the path, if the caller may see (the user themself or an admin) or create (the user themself) their links. */
async function ownerFor(deps: AuthDeps, username: unknown, caller: Caller, act: "read" | "create"): Promise<UserDoc> {
	const user = await findByUsername(deps.users, username);
	if (caller.id === user._id || (act === "read" && caller.role === "ADMIN")) return user;
	throw permissionDenied("only the user themself may manage their linked identities");
}

async function linkOf(deps: AuthDeps, user: UserDoc, idpId: unknown): Promise<UserLinkDoc> {
	const id = typeof idpId === "string" ? idpId : "";
	const link = id === "" ? null : await deps.userLinks.findOne({ userId: user._id, idpId: id });
	if (!link) throw notFound(`linked identity ${id} not found`);
	return link;
}

/** ListLinkedIdentities, by provider id (one per provider). */
export async function listLinkedIdentities(deps: AuthDeps, username: unknown, caller: Caller): Promise<Record<string, unknown>> {
	const user = await ownerFor(deps, username, caller, "read");
	const links = await deps.userLinks.find({ userId: user._id }, { sort: { idpId: 1 } });
	return { linkedIdentities: links.map(link => toLinkedIdentityJson(user.username, link)) };
}

export async function getLinkedIdentity(deps: AuthDeps, params: { user?: unknown; linkedIdentity?: unknown }, caller: Caller): Promise<Record<string, unknown>> {
	const user = await ownerFor(deps, params.user, caller, "read");
	return toLinkedIdentityJson(user.username, await linkOf(deps, user, params.linkedIdentity));
}

export async function deleteLinkedIdentity(deps: AuthDeps, params: { user?: unknown; linkedIdentity?: unknown }, caller: Caller): Promise<void> {
	const user = await ownerFor(deps, params.user, caller, "read");
	const link = await linkOf(deps, user, params.linkedIdentity);
	await deps.userLinks.remove({ _id: link._id });
}

/** Why a link cannot be made, or null when `existing` already is the asked-for link. */
function conflict(existing: UserLinkDoc, user: UserDoc, identifier: string): Error | null {
	if (existing.userId !== user._id) return alreadyExists("this identity is linked to another user");
	if (existing.identifier !== identifier) return alreadyExists("this identity provider is already linked to another account of this user");
	return null;
}

/**
 * CreateLinkedIdentity: links the caller to the provider account a successful OAuth2 code
 * exchange names (as upstream). One account belongs to at most one user, and a user has one
 * account per provider: anything else is ALREADY_EXISTS; linking the same account again answers it.
 */
export async function createLinkedIdentity(deps: AuthDeps, params: JsonMessage, caller: Caller, options: SsoOptions): Promise<Record<string, unknown>> {
	const user = await ownerFor(deps, params.user, caller, "create");
	const { idp, external } = await resolveSsoIdentity(deps, params, options, "");
	const link: UserLinkDoc = { _id: generateId(), idpId: idp._id, identifier: external.identifier, userId: user._id };
	const existing = async () =>
		(await deps.userLinks.findOne({ idpId: idp._id, identifier: external.identifier })) ?? (await deps.userLinks.findOne({ userId: user._id, idpId: idp._id }));
	const before = await existing();
	if (before !== null) {
		const refused = conflict(before, user, external.identifier);
		if (refused) throw refused;
		return toLinkedIdentityJson(user.username, before);
	}
	try {
		await deps.userLinks.insert(link);
	} catch (err) {
		if (!(err instanceof DuplicateKeyError)) throw err;
		// A concurrent link won: answer as if it had been there first.
		const winner = await existing();
		if (winner === null) throw err;
		const refused = conflict(winner, user, external.identifier);
		if (refused) throw refused;
		return toLinkedIdentityJson(user.username, winner);
	}
	return toLinkedIdentityJson(user.username, link);
}
