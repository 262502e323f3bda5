import type { Caller } from "../../shared/caller.js";
import { alreadyExists, failedPrecondition } from "../../shared/errors.js";
import { parseUpdateMask } from "../../shared/field-mask.js";
import { resolveId } from "../../shared/ids.js";
import { formatName } from "../../shared/names.js";
import { fieldOf, messageOf, queryBoolOf, queryStringOf } from "../../shared/request-message.js";
import { insertSequenced } from "../../shared/sequence.js";
import { DuplicateKeyError } from "../../shared/store/document-store.js";
import { spaceFor, spaceNotFound } from "./space-access.js";
import type { MemberDoc, SpaceDoc } from "./space-doc.js";
import { completeCreation, spaceBeingCreated } from "./space-creation.js";
import { readDescription, readDisplayName } from "./space-input.js";
import { creatorName, type SpaceView } from "./space-view.js";
import { spacesEvents } from "./spaces.contract.js";
import type { SpacesDeps } from "./spaces-deps.js";

/** The creator's name, in one `auth.lookupUsers` call. */
async function viewOf(deps: SpacesDeps, space: SpaceDoc, membership: MemberDoc | null): Promise<SpaceView> {
	const users = await deps.peers.usersById([space.creatorId]);
	return { space, membership, creator: creatorName(users, space.creatorId) };
}

/** CreateSpace (contract 9): the caller becomes the first ADMIN (space-creation.ts); a retry by the creator completes a creation left half-done. */
export async function createSpace(deps: SpacesDeps, params: { spaceId?: unknown; space?: unknown }, caller: Caller, now: number): Promise<SpaceView> {
	const { store } = deps;
	const id = resolveId(queryStringOf(params.spaceId, "spaceId"), "spaceId", "space");
	const body = messageOf(params.space, "space");
	const displayName = readDisplayName(fieldOf(body, "displayName"));
	const description = readDescription(fieldOf(body, "description"));
	let space = spaceBeingCreated({ _id: id, displayName, description, creatorId: caller.id, createTime: now }, now);
	try {
		await insertSequenced(store.spaces, store.nextSeq, seq => Object.assign(space, { seq }));
	} catch (err) {
		if (!(err instanceof DuplicateKeyError)) throw err;
		const existing = await store.spaces.findOne({ _id: id });
		if (existing?.creating !== true || existing.creatorId !== caller.id) throw alreadyExists(`space "spaces/${id}" already exists`);
		space = existing;
	}
	const membership = await completeCreation(store, space);
	await deps.announce(spacesEvents.memberAdded, { spaceId: id, userIds: [caller.id] });
	const created = await store.spaces.findOne({ _id: id });
	if (created === null) throw spaceNotFound(id);
	return { space: created, membership, creator: formatName("user", caller.username) };
}

/** GetSpace (contract 9): members and instance ADMINs. */
export async function getSpace(deps: SpacesDeps, params: { space?: unknown }, caller: Caller): Promise<SpaceView> {
	const { space, membership } = await spaceFor(deps.store, params.space, caller, "member");
	return viewOf(deps, space, membership);
}

/** UpdateSpace (contract 9): `display_name`, `description`; space ADMINs. */
export async function updateSpace(
	deps: SpacesDeps,
	params: { space?: unknown; updateMask?: unknown; patch?: unknown },
	caller: Caller,
	now: number
): Promise<SpaceView> {
	const { space, membership } = await spaceFor(deps.store, params.space, caller, "admin");
	const paths = parseUpdateMask(queryStringOf(params.updateMask, "updateMask"), ["display_name", "description"], { required: true });
	const body = messageOf(params.patch, "space");
	const set: Partial<SpaceDoc> = { updateTime: now };
	if (paths.includes("display_name")) set.displayName = readDisplayName(fieldOf(body, "displayName"));
	if (paths.includes("description")) set.description = readDescription(fieldOf(body, "description"));
	const updated = await deps.store.spaces.findOneAndUpdate({ _id: space._id }, { $set: set });
	if (updated === null) throw spaceNotFound(space._id);
	return viewOf(deps, updated, membership);
}

/**
 * DeleteSpace (contract 9): space ADMINs. Memos still placed in the space need `force`, which
 * detaches them (SPACE memos become PRIVATE) before the space goes.
 */
export async function deleteSpace(deps: SpacesDeps, params: { space?: unknown; force?: unknown }, caller: Caller): Promise<void> {
	const force = queryBoolOf(params, "force");
	const { space } = await spaceFor(deps.store, params.space, caller, "admin");
	if (!force) {
		const placed = await deps.peers.spaceMemoCount(space._id);
		if (placed > 0) throw failedPrecondition(`space "spaces/${space._id}" still holds ${placed} memos; delete with force to detach them`);
	}
	await eraseSpace(deps, space._id);
}

/** Removes the memberships, then the space; its memos are detached first (force semantics). */
export async function eraseSpace(deps: SpacesDeps, spaceId: string): Promise<void> {
	const { store, peers } = deps;
	await peers.detachSpace(spaceId);
	const members = await store.members.find({ spaceId }, { projection: { userId: 1 } });
	await store.members.remove({ spaceId }, { multi: true });
	await deps.announce(spacesEvents.memberRemoved, { spaceId, userIds: members.map(m => m.userId) });
	// Memos placed while the memberships were still there follow the others out.
	await peers.detachSpace(spaceId);
	await store.spaces.remove({ _id: spaceId });
}
