import { memberId, type SpaceRole } from "./space-doc.js";
import type { Membership } from "./spaces.contract.js";
import type { SpacesStore } from "./spaces-store.js";

/** The spaces a user belongs to and the user's role in each (for the memos service). */
export async function membershipsOf(store: SpacesStore, userId: string | undefined): Promise<Membership[]> {
	if (typeof userId !== "string" || userId === "") return [];
	const found = await store.members.find({ userId }, { projection: { spaceId: 1, role: 1 } });
	return found.map(m => ({ spaceId: m.spaceId, role: m.role }));
}

/** Whether a space exists and the roles of those of `userIds` who are its members (moving memos, contract 7.5). */
export async function spaceMembers(
	store: SpacesStore,
	spaceId: string,
	userIds: string[]
): Promise<{ exists: boolean; roles: Record<string, SpaceRole> }> {
	const exists = (await store.spaces.count({ _id: spaceId })) > 0;
	const roles: Record<string, SpaceRole> = {};
	if (!exists) return { exists, roles };
	const ids = userIds.map(userId => memberId(spaceId, userId));
	for (const m of await store.members.find({ _id: { $in: ids } })) roles[m.userId] = m.role;
	return { exists, roles };
}

/**
 * Those of `userIds` who are members of each of `spaceIds`, by space (the live stream's read
 * check of a batch of changes): one query, whatever the number of spaces.
 */
export async function membersOfSpaces(store: SpacesStore, spaceIds: string[], userIds: string[]): Promise<Record<string, string[]>> {
	const members: Record<string, string[]> = {};
	if (spaceIds.length === 0 || userIds.length === 0) return members;
	for (const m of await store.members.find({ spaceId: { $in: spaceIds }, userId: { $in: userIds } }, { projection: { spaceId: 1, userId: 1 } })) {
		(members[m.spaceId] ??= []).push(m.userId);
	}
	return members;
}
