import { insertSequenced } from "../../shared/sequence.js";
import { DuplicateKeyError } from "../../shared/store/document-store.js";
import { memberId, newMembership, type MemberDoc, type SpaceDoc } from "./space-doc.js";
import type { SpacesStore } from "./spaces-store.js";

/**
 * CreateSpace writes two documents, the space and its creator's ADMIN membership, without
 * transactions (issue 21), in an order that leaves every state between them valid:
 * 1. The space is inserted marked `creating`, with its membership change counted in
 *    (`pendingChanges` 1) and its counters at 0: they lag behind the memberships, never run
 *    ahead of them (admin-guard.ts). Nobody is a member yet, so nobody lists or changes it.
 * 2. The creator's ADMIN membership is inserted; its `_id` is the pair, so a second insert of
 *    it is a duplicate, not a second membership.
 * 3. One write conditioned on the mark counts the membership out (+1 member, +1 ADMIN) and
 *    clears the mark: whichever completion comes first counts, the others match nothing.
 * A failure after step 1, even of a write that happened, leaves the mark: CreateSpace retried
 * by the creator, or the repair pass once the change has settled (count-repair.ts), runs steps
 * 2 and 3 again.
 */

/** The space as step 1 inserts it (numbered by the insert). */
export function spaceBeingCreated(fields: Pick<SpaceDoc, "_id" | "displayName" | "description" | "creatorId" | "createTime">, now: number): SpaceDoc {
	return { ...fields, seq: 0, updateTime: fields.createTime, memberCount: 0, adminCount: 0, pendingChanges: 1, changedAt: now, creating: true };
}

/** Steps 2 and 3 for `space` (as read or inserted): its creator's ADMIN membership. */
export async function completeCreation(store: Pick<SpacesStore, "spaces" | "members" | "nextSeq">, space: SpaceDoc): Promise<MemberDoc> {
	const membership = newMembership(space, space.creatorId, "ADMIN", space.createTime, 0);
	let member: MemberDoc | null;
	try {
		member = await insertSequenced(store.members, store.nextSeq, seq => Object.assign(membership, { seq }));
	} catch (err) {
		// Written by an earlier attempt.
		if (!(err instanceof DuplicateKeyError)) throw err;
		member = await store.members.findOne({ _id: memberId(space._id, space.creatorId) });
		if (member === null) throw err;
	}
	await store.spaces.update({ _id: space._id, creating: true }, { $unset: { creating: true }, $inc: { memberCount: 1, adminCount: 1, pendingChanges: -1 } });
	return member;
}
