import type { Caller } from "../../shared/caller.js";
import { alreadyExists, notFound, permissionDenied } from "../../shared/errors.js";
import { parseUpdateMask } from "../../shared/field-mask.js";
import { pathId } from "../../shared/ids.js";
import { fieldOf, messageOf, queryStringOf } from "../../shared/request-message.js";
import { insertSequenced } from "../../shared/sequence.js";
import { DuplicateKeyError } from "../../shared/store/document-store.js";
import type { UserRef } from "../auth/auth.contract.js";
import { beginChange, changeRole, endChange, removeMember } from "./admin-guard.js";
import { spaceFor } from "./space-access.js";
import { memberId, newMembership, type MemberDoc, type SpaceRole } from "./space-doc.js";
import { joinableUser, readRole, readUserName } from "./space-input.js";
import type { MemberView } from "./space-view.js";
import { spacesEvents } from "./spaces.contract.js";
import type { SpacesDeps } from "./spaces-deps.js";

const notAMember = (username: string, spaceId: string) => notFound(`user "users/${username}" is not a member of space "spaces/${spaceId}"`);

/** The membership of `{member}` (a username) in a space; NOT_FOUND when there is none. */
async function memberByUsername(deps: SpacesDeps, spaceId: string, username: unknown): Promise<{ member: MemberDoc; user: UserRef }> {
	const name = pathId(username);
	if (name === "") throw notAMember(name, spaceId);
	const user = await deps.peers.userByName(name);
	const member = user === undefined ? null : await deps.store.members.findOne({ _id: memberId(spaceId, user.id) });
	if (user === undefined || member === null) throw notAMember(name, spaceId);
	return { member, user };
}

/** AddSpaceMember (contract 9): `{"user": "users/bob", "role": "MEMBER"}`; space ADMINs. */
export async function addSpaceMember(deps: SpacesDeps, params: { space?: unknown; member?: unknown }, caller: Caller, now: number): Promise<MemberView> {
	const { store } = deps;
	const { space } = await spaceFor(store, params.space, caller, "admin");
	const body = messageOf(params.member, "member");
	const username = readUserName(fieldOf(body, "user"), "member.user");
	const role = readRole(fieldOf(body, "role"), "MEMBER");
	const user = joinableUser(await deps.peers.userByName(username), username);
	// Numbered by the insert.
	const member = newMembership(space, user.id, role, now, 0);
	// Counted in before the insert and its counts added after it: they may lag behind the memberships, never run ahead (admin-guard.ts).
	await beginChange(store.spaces, space._id, false);
	try {
		await insertSequenced(store.members, store.nextSeq, seq => Object.assign(member, { seq }));
	} catch (err) {
		if (!(err instanceof DuplicateKeyError)) throw err;
		await endChange(store.spaces, space._id, {});
		throw alreadyExists(`user "users/${username}" is already a member of space "spaces/${space._id}"`);
	}
	await endChange(store.spaces, space._id, role === "ADMIN" ? { memberCount: 1, adminCount: 1 } : { memberCount: 1 });
	await deps.announce(spacesEvents.memberAdded, { spaceId: space._id, userIds: [user.id] });
	return { member, username: user.username };
}

/** UpdateSpaceMember (contract 9): `role`; space ADMINs; never the last ADMIN. */
export async function updateSpaceMember(
	deps: SpacesDeps,
	params: { space?: unknown; member?: unknown; updateMask?: unknown; patch?: unknown },
	caller: Caller
): Promise<MemberView> {
	const { space } = await spaceFor(deps.store, params.space, caller, "admin");
	parseUpdateMask(queryStringOf(params.updateMask, "updateMask"), ["role"], { required: true });
	const role: SpaceRole = readRole(fieldOf(messageOf(params.patch, "member"), "role"));
	const { member, user } = await memberByUsername(deps, space._id, params.member);
	const changed = await changeRole(deps.store, member._id, role);
	if (changed === null) throw notAMember(user.username, space._id);
	if (member.role !== changed.role) await deps.announce(spacesEvents.memberUpdated, { spaceId: space._id, userIds: [user.id] });
	return { member: changed, username: user.username };
}

/** RemoveSpaceMember (contract 9): space ADMINs, or the member leaving; never the last ADMIN. */
export async function removeSpaceMember(deps: SpacesDeps, params: { space?: unknown; member?: unknown }, caller: Caller): Promise<void> {
	const { space, membership } = await spaceFor(deps.store, params.space, caller, "member");
	const leaving = params.member === caller.username && membership !== null;
	if (!leaving && membership?.role !== "ADMIN" && caller.role !== "ADMIN") {
		throw permissionDenied(`only an ADMIN of space "spaces/${space._id}" may remove other members`);
	}
	const { member, user } = await memberByUsername(deps, space._id, params.member);
	const removed = await removeMember(deps.store, member._id);
	if (removed === null) throw notAMember(user.username, space._id);
	await deps.announce(spacesEvents.memberRemoved, { spaceId: space._id, userIds: [user.id] });
}
