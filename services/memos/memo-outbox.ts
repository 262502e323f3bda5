import type { Caller } from "../../shared/caller.js";
import { generateId } from "../../shared/ids.js";
import type { Update } from "../../shared/store/document-store.js";
import type { MemoChangeRecord } from "../auth/auth.contract.js";
import type { MemoDoc, OutboxEntry } from "./memo-doc.js";
import { memoResponses } from "./memo-responses.js";
import type { MemosDeps } from "./memos-deps.js";

/**
 * The memos' outbox for webhook deliveries (contract 17: at least once, durable). A change
 * that webhooks report is written in the same single-document write as the change itself: the
 * memo's `outbox` gains an entry and `outboxPending` is set. So no crash can store a change
 * without its entry; there is no window between "memo stored" and "delivery recorded" to lose.
 * The entries are then relayed to the auth service (`auth.recordMemoChanges`, which writes one
 * delivery per webhook, idempotently per entry) and pulled from the memo:
 * - at once, by the request that made the change, with the Memo message it answers (the
 *   payload as of the change);
 * - else by the relay pass (every few seconds, and before a purge removes a memo), for entries
 *   a crash or an unavailable auth service left behind, rendering the memo as it then is.
 * A relay may run twice for one entry (two replicas, a crash after recording): recording is
 * idempotent, so a change is recorded once.
 */

/** Memos relayed per query of the relay pass. */
const RELAY_BATCH = 100;

export function outboxEntry(event: OutboxEntry["event"], time: number): OutboxEntry {
	return { id: generateId(), event, time };
}

/** `update` plus the outbox entry of the change it makes, in the same write. */
export function withOutboxEntry(update: Update, entry: OutboxEntry): Update {
	return { ...update, $set: { ...update.$set, outboxPending: true }, $push: { ...update.$push, outbox: entry } };
}

/**
 * The fields of a new memo's document that hold its creation's outbox entries: memo.created for
 * its creator, and for a comment memo.comment.created for the commented memo's creator (upstream).
 */
export function newMemoOutbox(time: number, commentedCreatorId?: string): Pick<MemoDoc, "outbox" | "outboxPending"> {
	const outbox = [outboxEntry("memo.created", time)];
	if (commentedCreatorId !== undefined) outbox.push({ ...outboxEntry("memo.comment.created", time), recipientId: commentedCreatorId });
	return { outbox, outboxPending: true };
}

/**
 * Records the pending entries of `docs` (each rendered as the Memo message of the same index
 * in `memos`) as deliveries, then takes them out of the outbox. Throws when the auth service
 * cannot record them: the entries stay for the next relay.
 */
export async function relayChanges(deps: MemosDeps, docs: readonly MemoDoc[], memos: readonly Record<string, unknown>[]): Promise<void> {
	const pending = docs.map((doc, i) => ({ doc, memo: memos[i] ?? {}, entries: doc.outbox ?? [] })).filter(item => item.entries.length > 0);
	if (pending.length === 0) return;
	const changes: MemoChangeRecord[] = pending.flatMap(({ doc, memo, entries }) =>
		entries.map(entry => ({ changeId: entry.id, event: entry.event, time: entry.time, recipientId: entry.recipientId ?? doc.creatorId, creator: String(memo.creator ?? ""), memo }))
	);
	await deps.peers.recordMemoChanges(changes);
	const { memos: collection } = deps.store;
	for (const { doc, entries } of pending) await takeOut(collection, doc._id, entries.map(entry => entry.id));
}

/**
 * Takes the relayed entries `ids` out of a memo's outbox, and the memo out of the relay pass's
 * index once its outbox is empty. Usually the outbox holds just those: one write (every write
 * of a memo rewrites all its index entries). Else an entry pushed meanwhile keeps it pending.
 */
async function takeOut(collection: MemosDeps["store"]["memos"], memoId: string, ids: string[]): Promise<void> {
	const onlyThese = await collection.update({ _id: memoId, outbox: { $not: { $elemMatch: { id: { $nin: ids } } } } }, { $set: { outbox: [] }, $unset: { outboxPending: true } });
	if (onlyThese > 0) return;
	await collection.update({ _id: memoId }, { $pull: { outbox: { id: { $in: ids } } } });
	await collection.update({ _id: memoId, outbox: { $size: 0 } }, { $unset: { outboxPending: true } });
}

/** Renders `docs` as their creators see them and relays their entries (the relay pass). */
async function renderAndRelay(deps: MemosDeps, docs: readonly MemoDoc[]): Promise<void> {
	const names = await deps.peers.userNames(docs.map(doc => doc.creatorId));
	for (const creatorId of new Set(docs.map(doc => doc.creatorId))) {
		const own = docs.filter(doc => doc.creatorId === creatorId);
		const username = (names.get(creatorId) ?? "").replace(/^users\//, "");
		const creator: Caller = { id: creatorId, username, role: "USER" };
		await relayChanges(deps, own, await memoResponses(deps, creator, own));
	}
}

/** The relay pass: relays every memo's pending entries, `RELAY_BATCH` memos at a time in id order; `ids` limits it to those memos. Returns how many memos it relayed. */
export async function relayPendingChanges(deps: MemosDeps, ids?: readonly string[]): Promise<number> {
	let relayed = 0;
	let after = "";
	for (;;) {
		const id = ids === undefined ? { $gt: after } : { $gt: after, $in: [...ids] };
		const docs = await deps.store.memos.find({ outboxPending: true, _id: id }, { sort: { outboxPending: 1, _id: 1 }, limit: RELAY_BATCH });
		if (docs.length === 0) return relayed;
		await renderAndRelay(deps, docs);
		relayed += docs.length;
		after = docs[docs.length - 1]!._id;
	}
}
