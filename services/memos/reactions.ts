import type { Caller } from "../../shared/caller.js";
import { internal, invalidArgument, notFound, permissionDenied } from "../../shared/errors.js";
import { hasLoneSurrogate } from "../../shared/free-form.js";
import { generateId } from "../../shared/ids.js";
import { formatReactionName } from "../../shared/names.js";
import { listPage, type ListPageSpec } from "../../shared/paging/list-page.js";
import { toTimestamp } from "../../shared/proto-json.js";
import { DuplicateKeyError } from "../../shared/store/document-store.js";
import { assertReadable } from "./memo-access.js";
import type { ReactionDoc } from "./memo-doc.js";
import { memoChangeEvent } from "./memo-events.js";
import { memoEvents } from "./memos.contract.js";
import type { MemosDeps } from "./memos-deps.js";
import type { MemosStore } from "./memos-store.js";

/** Reactions (contract 4.3, 7.10): at most one per (user, memo), enforced by a unique index (memos-store.ts). */

const MAX_REACTION_TYPE_BYTES = 64;
const LIST_MEMO_REACTIONS = "ListMemoReactions";

/** The Reaction message; `creator` is `users/{username}`, resolved per request. */
export function toReactionJson(doc: ReactionDoc, creator: string): Record<string, unknown> {
	return { name: formatReactionName(doc.memoId, doc._id), creator, reactionType: doc.reactionType, createTime: toTimestamp(doc.createTime) };
}

/** The reactions of each memo, oldest first, in one query, read memo by memo in the order of the memoId index. */
export async function reactionsFor(store: MemosStore, memoIds: readonly string[]): Promise<Map<string, ReactionDoc[]>> {
	const result = new Map<string, ReactionDoc[]>();
	if (memoIds.length === 0) return result;
	for (const doc of await store.reactions.find({ memoId: { $in: [...memoIds] } }, { sort: { memoId: 1, createTime: 1, _id: 1 } })) {
		const list = result.get(doc.memoId) ?? [];
		list.push(doc);
		result.set(doc.memoId, list);
	}
	return result;
}

/** `reaction.reactionType`: 1–64 UTF-8 bytes (contract 4.3). */
export function parseReactionType(body: unknown): string {
	const reaction = body === undefined || body === null ? {} : body;
	if (typeof reaction !== "object" || Array.isArray(reaction)) throw invalidArgument("reaction must be a JSON object");
	const fields = reaction as Record<string, unknown>;
	const type = fields.reactionType ?? fields.reaction_type;
	if (type === undefined || type === null || type === "") throw invalidArgument("reaction.reactionType is required");
	if (typeof type !== "string") throw invalidArgument("reaction.reactionType must be a string");
	if (hasLoneSurrogate(type) || Buffer.byteLength(type, "utf8") > MAX_REACTION_TYPE_BYTES) {
		throw invalidArgument(`reaction.reactionType must be 1-${MAX_REACTION_TYPE_BYTES} bytes of UTF-8`);
	}
	return type;
}

/**
 * The caller's reaction set to `reactionType`: replaced in place when it exists (same name
 * and createTime), else inserted. Two concurrent first reactions meet at the unique index;
 * the loser then updates the winner's document, so exactly one remains.
 */
async function upsertReaction(store: MemosStore, memoId: string, creatorId: string, reactionType: string, now: number): Promise<ReactionDoc> {
	for (let attempt = 0; attempt < 3; attempt++) {
		const updated = await store.reactions.findOneAndUpdate({ memoId, creatorId }, { $set: { reactionType } });
		if (updated !== null) return updated;
		const doc: ReactionDoc = { _id: generateId(), memoId, creatorId, reactionType, createTime: now };
		try {
			return await store.reactions.insert(doc);
		} catch (err) {
			if (!(err instanceof DuplicateKeyError)) throw err;
		}
	}
	throw internal("reaction upsert did not settle");
}

/** UpsertMemoReaction (contract 7.10): read access to the memo; the Reaction message. */
export async function upsertMemoReaction(deps: MemosDeps, caller: Caller, id: string, reactionType: string, now: number): Promise<Record<string, unknown>> {
	const memo = await deps.store.memos.findOne({ _id: id });
	assertReadable(memo, id, caller, await deps.peers.spacesOf(caller));
	const doc = await upsertReaction(deps.store, id, caller.id, reactionType, now);
	await deps.announce(memoEvents.reactionUpserted, memoChangeEvent(memo, caller, now));
	const names = await deps.peers.userNames([caller.id]);
	return toReactionJson(doc, names.get(caller.id) ?? `users/${caller.username}`);
}

/** ListMemoReactions (contract 7.10): read access to the memo; oldest first. */
export async function listMemoReactions(
	deps: MemosDeps,
	caller: Caller | null,
	id: string,
	request: Pick<ListPageSpec, "pageSize" | "pageToken">
): Promise<{ reactions: Record<string, unknown>[]; nextPageToken: string }> {
	assertReadable(await deps.store.memos.findOne({ _id: id }), id, caller, await deps.peers.spacesOf(caller));
	const page = await listPage(deps.store.reactions, {
		operation: LIST_MEMO_REACTIONS,
		query: { memo: id },
		...request,
		sort: { createTime: 1, _id: 1 },
		keyTypes: { createTime: "number", _id: "string" },
		branches: [{ memoId: id }]
	});
	const names = await deps.peers.userNames(page.items.map(doc => doc.creatorId));
	return { reactions: page.items.map(doc => toReactionJson(doc, names.get(doc.creatorId) ?? "")), nextPageToken: page.nextPageToken };
}

/** DeleteMemoReaction (contract 7.10): its creator or an instance ADMIN; another memo's reaction is NOT_FOUND. */
export async function deleteMemoReaction(deps: MemosDeps, caller: Caller, memoId: string, reactionId: string, now: number): Promise<void> {
	const { store } = deps;
	const memo = await store.memos.findOne({ _id: memoId, deleteTime: null });
	const reaction = memo === null ? null : await store.reactions.findOne({ _id: reactionId, memoId });
	if (memo === null || reaction === null) throw notFound(`reaction "${formatReactionName(memoId, reactionId)}" not found`);
	if (reaction.creatorId !== caller.id && caller.role !== "ADMIN") throw permissionDenied("only the reaction's creator or an admin may delete it");
	// Removed by a concurrent delete: that one announced it.
	if ((await store.reactions.remove({ _id: reactionId, memoId })) === 0) return;
	await deps.announce(memoEvents.reactionDeleted, memoChangeEvent(memo, caller, now));
}
