import type { ServiceBroker } from "moleculer";
import { ensureReactionIndexes, reactionCollection } from "./reactions.js";
import { ensureRelationIndexes } from "./relations.js";
import { ensureShareIndexes, shareCollection } from "./shares.js";

/** The indexes of what a memo owns besides its own document: relations, reactions, share links. */
export async function ensureMemoExtrasIndexes(broker: ServiceBroker): Promise<void> {
	await ensureRelationIndexes(broker);
	await ensureReactionIndexes(broker);
	await ensureShareIndexes(broker);
}

/** A purged memo takes its reactions and share links along (contract 7.6); relations go at deletion (relations.ts, detachMemos). */
export async function purgeMemoExtras(broker: ServiceBroker, memoIds: readonly string[]): Promise<void> {
	if (memoIds.length === 0) return;
	const memoId = { $in: [...memoIds] };
	await reactionCollection(broker).remove({ memoId }, { multi: true });
	await shareCollection(broker).remove({ memoId }, { multi: true });
}
