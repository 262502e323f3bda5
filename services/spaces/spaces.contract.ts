import { defineAction, defineApiAction, defineEvent } from "../../shared/contract.js";
import type { UserDataParams } from "../auth/auth.contract.js";

/** The spaces service's published boundary: what other services and the gateway may use of it. */

/** What `spaces.membershipsOf` answers: the spaces a user belongs to, with the user's role. */
export interface Membership {
	spaceId: string;
	role: "ADMIN" | "MEMBER";
}

/** The payload of the membership events. */
export interface SpaceMemberEvent {
	spaceId: string;
	userIds: string[];
}

export const spacesActions = {
	listSpaces: defineApiAction("spaces.listSpaces"),
	createSpace: defineApiAction("spaces.createSpace"),
	getSpace: defineApiAction("spaces.getSpace"),
	updateSpace: defineApiAction("spaces.updateSpace"),
	deleteSpace: defineApiAction("spaces.deleteSpace"),
	listSpaceMembers: defineApiAction("spaces.listSpaceMembers"),
	addSpaceMember: defineApiAction("spaces.addSpaceMember"),
	updateSpaceMember: defineApiAction("spaces.updateSpaceMember"),
	removeSpaceMember: defineApiAction("spaces.removeSpaceMember"),
	membershipsOf: defineAction<{ userId: string }, Membership[]>("spaces.membershipsOf"),
	/** Whether a space exists, and the roles of those of `userIds` who are its members. */
	spaceMembers: defineAction<{ spaceId: string; userIds: string[] }, { exists: boolean; roles: Record<string, Membership["role"]> }>(
		"spaces.spaceMembers"
	),
	/** Those of `userIds` who are members of each of `spaceIds` (no entry for a space without any), in one call. */
	membersOfSpaces: defineAction<{ spaceIds: string[]; userIds: string[] }, Record<string, string[]>>("spaces.membersOfSpaces"),
	stats: defineAction<undefined, { spaceCount: number }>("spaces.stats"),
	deleteUserData: defineAction<UserDataParams, void>("spaces.deleteUserData")
} as const;

/**
 * Broadcast by the spaces service after a membership changed. Services that cache memberships
 * (the memos service) drop those users' entries, so a change takes effect on the users' next
 * request on every node.
 */
export const spacesEvents = {
	memberAdded: defineEvent<SpaceMemberEvent>("space.member.added"),
	memberUpdated: defineEvent<SpaceMemberEvent>("space.member.updated"),
	memberRemoved: defineEvent<SpaceMemberEvent>("space.member.removed"),
	/** Every membership event, for handlers. */
	memberChanged: defineEvent<SpaceMemberEvent>("space.member.*")
} as const;
