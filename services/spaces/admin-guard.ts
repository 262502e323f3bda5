import { failedPrecondition, ServiceError } from "../../shared/errors.js";
import type { Collection } from "../../shared/store/document-store.js";
import type { MemberDoc, SpaceDoc, SpaceRole } from "./space-doc.js";
import type { SpacesStore } from "./spaces-store.js";

/**
 * Keeps at least one ADMIN in every space (contract 9) without transactions.
 *
 * Invariant: `adminCount` + (changes that reserved an ADMIN and have not finished) never
 * exceeds the number of ADMIN memberships, and `adminCount` never drops below 1.
 * - Losing an ADMIN (demotion, removal) first reserves it: one atomic conditional
 *   decrement, `adminCount > 1 → adminCount - 1`. Two concurrent requests cannot both pass
 *   it when only two ADMINs are left. Then the membership changes, conditioned on still being
 *   ADMIN; if it no longer was (another request changed it first), the reservation is given
 *   back.
 * - Gaining an ADMIN (promotion, an ADMIN added) changes the membership first and counts it
 *   afterwards, so the counter lags behind and never overstates.
 */

/** How many times a change that lost a race with another change of the same member is retried. */
const ATTEMPTS = 5;

const lastAdmin = () => failedPrecondition("a space must keep at least one ADMIN");

export type GuardCollections = Pick<SpacesStore, "spaces" | "members">;

async function reserveAdmin(spaces: Collection<SpaceDoc>, spaceId: string): Promise<void> {
	const reserved = await spaces.findOneAndUpdate({ _id: spaceId, adminCount: { $gt: 1 } }, { $inc: { adminCount: -1 } });
	if (reserved === null) throw lastAdmin();
}

async function releaseReservation(spaces: Collection<SpaceDoc>, spaceId: string): Promise<void> {
	await spaces.update({ _id: spaceId }, { $inc: { adminCount: 1 } });
}

/**
 * Changes a membership's role. Returns the membership as changed, or null when it does not
 * exist. Demoting the last ADMIN: FAILED_PRECONDITION.
 */
export async function changeRole(db: GuardCollections, id: string, role: SpaceRole): Promise<MemberDoc | null> {
	for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
		const member = await db.members.findOne({ _id: id });
		if (member === null) return null;
		if (member.role === role) return member;
		if (role === "ADMIN") {
			const promoted = await db.members.findOneAndUpdate({ _id: id, role: "MEMBER" }, { $set: { role } });
			if (promoted === null) continue;
			await db.spaces.update({ _id: member.spaceId }, { $inc: { adminCount: 1 } });
			return promoted;
		}
		await reserveAdmin(db.spaces, member.spaceId);
		const demoted = await db.members.findOneAndUpdate({ _id: id, role: "ADMIN" }, { $set: { role } }).catch(async (err: unknown) => {
			await releaseReservation(db.spaces, member.spaceId);
			throw err;
		});
		if (demoted !== null) return demoted;
		await releaseReservation(db.spaces, member.spaceId);
	}
	throw new ServiceError("ABORTED", "the membership changed concurrently; retry");
}

/**
 * Removes a membership and counts it out. Returns the removed membership, or null when it
 * did not exist. Removing the last ADMIN: FAILED_PRECONDITION.
 */
export async function removeMember(db: GuardCollections, id: string): Promise<MemberDoc | null> {
	for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
		const member = await db.members.findOne({ _id: id });
		if (member === null) return null;
		if (member.role === "ADMIN") await reserveAdmin(db.spaces, member.spaceId);
		const removed = await db.members.remove({ _id: id, role: member.role }).catch(async (err: unknown) => {
			if (member.role === "ADMIN") await releaseReservation(db.spaces, member.spaceId);
			throw err;
		});
		if (removed === 1) {
			await db.spaces.update({ _id: member.spaceId }, { $inc: { memberCount: -1 } });
			return member;
		}
		if (member.role === "ADMIN") await releaseReservation(db.spaces, member.spaceId);
	}
	throw new ServiceError("ABORTED", "the membership changed concurrently; retry");
}
