import { SETTLE_MS } from "../../shared/store/settle-time.js";
import type { GuardCollections } from "./admin-guard.js";
import { completeCreation } from "./space-creation.js";
import type { SpacesStore } from "./spaces-store.js";

/** Spaces looked at per pass. */
const REPAIR_BATCH = 100;

/**
 * The repair pass of the membership counters (admin-guard.ts; issue 21), which also completes a
 * CreateSpace left half-done (space-creation.ts): a space with changes
 * left pending by a crash or an ambiguous write, the latest begun before `now - SETTLE_MS`, gets
 * `memberCount` and `adminCount` recounted from its memberships, written only if nothing
 * changed the space since it was read. Returns how many spaces it recounted.
 */
export async function recountPendingSpaces(db: GuardCollections & Pick<SpacesStore, "nextSeq">, now: number): Promise<number> {
	const pending = await db.spaces.find({ pendingChanges: { $gt: 0 } }, { limit: REPAIR_BATCH });
	let recounted = 0;
	for (const space of pending) {
		if (space.changedAt !== undefined && space.changedAt >= now - SETTLE_MS) continue;
		if (space.creating === true) {
			// A creation left half-done is completed, which counts its membership out.
			await completeCreation(db, space);
			recounted += 1;
			continue;
		}
		const memberCount = await db.members.count({ spaceId: space._id });
		const adminCount = await db.members.count({ spaceId: space._id, role: "ADMIN" });
		const unchanged = { _id: space._id, pendingChanges: space.pendingChanges, changedAt: space.changedAt, memberCount: space.memberCount, adminCount: space.adminCount };
		recounted += await db.spaces.update(unchanged, { $set: { pendingChanges: 0, memberCount, adminCount } });
	}
	return recounted;
}
