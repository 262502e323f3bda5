import type { Doc } from "../../shared/store/document-store.js";

export type SpaceRole = "ADMIN" | "MEMBER";

/** Role enum values in number order, so numbers are accepted as proto3 JSON allows (contract 1.2, 4.7). */
export const ROLE_VALUES = ["ROLE_UNSPECIFIED", "ADMIN", "MEMBER"] as const;

/**
 * A space (collection `spaces`). `memberCount` and `adminCount` are counters kept beside the
 * memberships: the store has no transactions, and a conditional decrement of `adminCount` is
 * what keeps a space from losing its last ADMIN (admin-guard.ts).
 */
export interface SpaceDoc extends Doc {
	seq: number;
	displayName: string;
	description: string;
	creatorId: string;
	createTime: number;
	updateTime: number;
	memberCount: number;
	/** Never above the number of ADMIN memberships, never below 1 once created (admin-guard.ts). */
	adminCount: number;
	/** Membership changes begun and not yet counted out, and when the latest began (admin-guard.ts). */
	pendingChanges?: number;
	changedAt?: number;
	/** Set until the creator's ADMIN membership is written and counted (space-creation.ts). */
	creating?: true;
}

/**
 * A membership (collection `space_members`), `_id` = memberId(space, user). The space's creation
 * time and sequence are copied in so that ListSpaces pages through one user's memberships in
 * the order of their spaces with one indexed query.
 */
export interface MemberDoc extends Doc {
	spaceId: string;
	userId: string;
	role: SpaceRole;
	joinTime: number;
	/** Join order, the order of ListSpaceMembers. */
	seq: number;
	spaceCreateTime: number;
	spaceSeq: number;
}

export const SPACES = "spaces";
export const SPACE_MEMBERS = "space_members";
export const SPACE_SEQUENCES = "space_sequences";

export function memberId(spaceId: string, userId: string): string {
	return `${spaceId}/${userId}`;
}

/** A new membership of `userId` in `space`, joining at `joinTime` as the `seq`-th of the space's counter. */
export function newMembership(space: SpaceDoc, userId: string, role: SpaceRole, joinTime: number, seq: number): MemberDoc {
	return { _id: memberId(space._id, userId), spaceId: space._id, userId, role, joinTime, seq, spaceCreateTime: space.createTime, spaceSeq: space.seq };
}
