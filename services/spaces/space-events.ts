/**
 * Broadcast by the spaces service after a membership changed, with `{ spaceId, userIds }`.
 * Services that cache memberships (the memos service) drop those users' entries, so a change
 * takes effect on the users' next request on every node.
 */
export const SPACE_MEMBER_ADDED = "space.member.added";
export const SPACE_MEMBER_UPDATED = "space.member.updated";
export const SPACE_MEMBER_REMOVED = "space.member.removed";

export interface SpaceMemberEvent {
	spaceId: string;
	userIds: string[];
}

/** What `spaces.membershipsOf` answers: the spaces a user belongs to, with the user's role. */
export interface Membership {
	spaceId: string;
	role: "ADMIN" | "MEMBER";
}
