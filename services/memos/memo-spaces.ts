import type { Caller } from "../../shared/caller.js";
import { failedPrecondition, notFound } from "../../shared/errors.js";
import type { MemoDoc } from "./memo-doc.js";

/** SPACE rules of the memo service (contract 1.10, 3.4, 7.3, 7.5, 7.6). */

/** The caller's spaces and their role in each, from `spaces.membershipsOf`. */
export type SpaceRoles = ReadonlyMap<string, "ADMIN" | "MEMBER">;

/** An anonymous caller's, or one who belongs to no space. */
export const NO_SPACES: SpaceRoles = new Map();

export const spaceNotFound = (id: string) => notFound(`space "spaces/${id}" not found`);

/** Placing a memo in a space on create: members only; the space is masked for anyone else (7.3). */
export function assertCanPlace(spaces: SpaceRoles, spaceId: string | null): void {
	if (spaceId !== null && !spaces.has(spaceId)) throw spaceNotFound(spaceId);
}

/**
 * Moving a memo to `spaceId` (7.5), with what the spaces service says of the destination:
 * the caller must be a member (instance ADMINs excepted; NOT_FOUND otherwise, and for a
 * space that does not exist), and the memo's creator must be a member (FAILED_PRECONDITION).
 */
export function assertCanMove(
	caller: Caller,
	callerSpaces: SpaceRoles,
	spaceId: string,
	destination: { exists: boolean; creatorIsMember: boolean }
): void {
	if (!destination.exists) throw spaceNotFound(spaceId);
	if (!callerSpaces.has(spaceId) && caller.role !== "ADMIN") throw spaceNotFound(spaceId);
	if (!destination.creatorIsMember) throw failedPrecondition(`the memo's creator is not a member of space "spaces/${spaceId}"`);
}

/** An ADMIN of the memo's space may delete it (3.4, 7.6). */
export function isSpaceAdminOf(memo: MemoDoc, spaces: SpaceRoles): boolean {
	return memo.spaceId !== null && spaces.get(memo.spaceId) === "ADMIN";
}

/**
 * Whether members of the memo's space other than its creator can read it: a NORMAL memo
 * that is not PRIVATE. The attachments service keeps this beside each linked attachment for
 * the space widening of ListAttachments (8.1).
 */
export function readableInSpace(memo: Pick<MemoDoc, "state" | "visibility">): boolean {
	return memo.state === "NORMAL" && memo.visibility !== "PRIVATE";
}
