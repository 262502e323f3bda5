import { nextSequence, SEQ_INDEX } from "../../shared/sequence.js";
import type { Collection, DocumentStore } from "../../shared/store/document-store.js";
import { SPACE_MEMBERS, SPACE_SEQUENCES, SPACES, type MemberDoc, type SpaceDoc } from "./space-doc.js";

/** The spaces service's collections: spaces, memberships and the counter both take their sequence from. */
export interface SpacesStore {
	spaces: Collection<SpaceDoc>;
	members: Collection<MemberDoc>;
	/** One counter for spaces and memberships: unique and increasing across replicas. */
	nextSeq(): Promise<number>;
}

export function spacesStore(documents: DocumentStore): SpacesStore {
	return {
		spaces: documents.collection<SpaceDoc>(SPACES),
		members: documents.collection<MemberDoc>(SPACE_MEMBERS),
		nextSeq: () => nextSequence(documents, SPACE_SEQUENCES, SPACES)
	};
}

export async function ensureSpaceIndexes(store: SpacesStore): Promise<void> {
	// ListSpaces: one user's memberships in the order of their spaces, newest first.
	await store.members.ensureIndex({ fields: { userId: 1, spaceCreateTime: -1, spaceSeq: -1 } });
	// ListSpaceMembers: join order.
	await store.members.ensureIndex({ fields: { spaceId: 1, seq: 1 } });
	// The tie-breakers of both lists are handed out once (shared/sequence.ts, insertSequenced).
	await store.spaces.ensureIndex(SEQ_INDEX);
	await store.members.ensureIndex(SEQ_INDEX);
	// The repair pass (count-repair.ts): spaces with membership changes pending, and a space's ADMINs.
	await store.spaces.ensureIndex({ fields: { pendingChanges: 1 } });
	await store.members.ensureIndex({ fields: { spaceId: 1, role: 1 } });
}

/** How many spaces exist (InstanceStats, contract 4.11). */
export function spaceCount(store: SpacesStore): Promise<number> {
	return store.spaces.estimatedCount();
}
