import { changeRole, removeMember } from "./admin-guard.js";
import { MEMBERS_SORT } from "./list-spaces.js";
import { eraseSpace } from "./space-changes.js";
import { spacesEvents } from "./spaces.contract.js";
import type { SpacesDeps } from "./spaces-deps.js";

/**
 * For DeleteUser (contract 2.4): removes the user's memberships. Where the user is the last
 * ADMIN, the longest-standing other member becomes ADMIN; a space left without any member is
 * deleted as with `force`. Idempotent.
 */
export async function leaveAllSpaces(deps: SpacesDeps, userId: string): Promise<void> {
	const { store } = deps;
	for (const membership of await store.members.find({ userId })) {
		if (membership.role === "ADMIN") {
			const space = await store.spaces.findOne({ _id: membership.spaceId });
			if (space !== null && space.adminCount <= 1) {
				const [successor] = await store.members.find({ spaceId: space._id, userId: { $ne: userId } }, { sort: MEMBERS_SORT, limit: 1 });
				if (successor === undefined) {
					await eraseSpace(deps, space._id);
					continue;
				}
				await changeRole(store, successor._id, "ADMIN");
				await deps.announce(spacesEvents.memberUpdated, { spaceId: space._id, userIds: [successor.userId] });
			}
		}
		if ((await removeMember(store, membership._id)) !== null) {
			await deps.announce(spacesEvents.memberRemoved, { spaceId: membership.spaceId, userIds: [userId] });
		}
	}
}
