import { failedPrecondition, ServiceError } from "../../shared/errors.js";
import type { Collection } from "../../shared/store/document-store.js";
import type { MemberDoc, SpaceDoc, SpaceRole } from "./space-doc.js";
import type { SpacesStore } from "./spaces-store.js";

/**
 * Keeps at least one ADMIN in every space (contract 9) without transactions: ordering,
 * counters that may lag but never run ahead, and a repair pass (count-repair.ts; issue 21).
 *
 * Invariant: `adminCount` + (changes that reserved an ADMIN and have not finished) never
 * exceeds the number of ADMIN memberships, and `adminCount` never drops below 1.
 * - Every membership change is counted in `pendingChanges` (with `changedAt`) before its
 *   membership write and counted out, with its counter deltas, in one write after it.
 * - Losing an ADMIN (demotion, removal) reserves it in that first write: one atomic conditional
 *   decrement, `adminCount > 1 → adminCount - 1`. Two concurrent requests cannot both pass it
 *   when only two ADMINs are left. Then the membership changes, conditioned on its role being
 *   unchanged; if it was changed by another request first, the reservation is given back.
 * - Gaining an ADMIN (promotion, an ADMIN added) changes the membership first and counts it
 *   afterwards, so the counter lags behind and never overstates.
 * - A membership write that fails may still have happened (an ambiguous write on a failover):
 *   its change stays pending, a reservation is never given back on a guess, and the repair
 *   pass recounts the space once no request can still be working on it.
 */

/** How many times a change that lost a race with another change of the same member is retried. */
const ATTEMPTS = 5;

const lastAdmin = () => failedPrecondition("a space must keep at least one ADMIN");

export type GuardCollections = Pick<SpacesStore, "spaces" | "members">;

type Counters = Partial<Record<"adminCount" | "memberCount", number>>;

/** Counts a membership change of the space in, reserving an ADMIN when the change may lose one. */
export async function beginChange(spaces: Collection<SpaceDoc>, spaceId: string, reserveAdmin: boolean): Promise<void> {
	const begin = { $set: { changedAt: Date.now() } };
	if (!reserveAdmin) {
		await spaces.update({ _id: spaceId }, { ...begin, $inc: { pendingChanges: 1 } });
		return;
	}
	const reserved = await spaces.findOneAndUpdate({ _id: spaceId, adminCount: { $gt: 1 } }, { ...begin, $inc: { adminCount: -1, pendingChanges: 1 } });
	if (reserved === null) throw lastAdmin();
}

/** Counts a finished membership change out, with what it changed of the counters. */
export async function endChange(spaces: Collection<SpaceDoc>, spaceId: string, counters: Counters): Promise<void> {
	await spaces.update({ _id: spaceId }, { $inc: { ...counters, pendingChanges: -1 } });
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
		const demotion = role !== "ADMIN";
		await beginChange(db.spaces, member.spaceId, demotion);
		const changed = await db.members.findOneAndUpdate({ _id: id, role: member.role }, { $set: { role } });
		if (changed === null) {
			await endChange(db.spaces, member.spaceId, demotion ? { adminCount: 1 } : {});
			continue;
		}
		await endChange(db.spaces, member.spaceId, demotion ? {} : { adminCount: 1 });
		return changed;
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
		const admin = member.role === "ADMIN";
		await beginChange(db.spaces, member.spaceId, admin);
		const removed = await db.members.remove({ _id: id, role: member.role });
		if (removed === 0) {
			await endChange(db.spaces, member.spaceId, admin ? { adminCount: 1 } : {});
			continue;
		}
		await endChange(db.spaces, member.spaceId, { memberCount: -1 });
		return member;
	}
	throw new ServiceError("ABORTED", "the membership changed concurrently; retry");
}
