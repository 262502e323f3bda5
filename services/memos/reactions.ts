import type { Context, ServiceBroker } from "moleculer";
import type { RequestMeta } from "../../shared/caller.js";
import { internal, invalidArgument, notFound, permissionDenied, unauthenticated } from "../../shared/errors.js";
import { generateId, pathId } from "../../shared/ids.js";
import { formatReactionName } from "../../shared/names.js";
import { listPage, pageSizeParam } from "../../shared/paging/list-page.js";
import { toTimestamp } from "../../shared/proto-json.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import { DuplicateKeyError, type Collection } from "../../shared/store/document-store.js";
import { assertReadable } from "./memo-access.js";
import type { MemosActions } from "./memos-schema.js";

/** Reactions (contract 4.3, 7.10): at most one per (user, memo), enforced by a unique index. */
export const MEMO_REACTIONS = "memo_reactions";

export interface ReactionDoc {
	_id: string;
	memoId: string;
	creatorId: string;
	reactionType: string;
	createTime: number;
	[key: string]: unknown;
}

const MAX_REACTION_TYPE_BYTES = 64;
const LIST_MEMO_REACTIONS = "ListMemoReactions";

export function reactionCollection(broker: ServiceBroker): Collection<ReactionDoc> {
	return documentsOf(broker).collection<ReactionDoc>(MEMO_REACTIONS);
}

export async function ensureReactionIndexes(broker: ServiceBroker): Promise<void> {
	const reactions = reactionCollection(broker);
	await reactions.ensureIndex({ fields: { memoId: 1, creatorId: 1 }, unique: true });
	await reactions.ensureIndex({ fields: { memoId: 1, createTime: 1, _id: 1 } });
	await reactions.ensureIndex({ fields: { creatorId: 1 } });
}

/** The Reaction message; `creator` is `users/{username}`, resolved per request. */
export function toReactionJson(doc: ReactionDoc, creator: string): Record<string, unknown> {
	return { name: formatReactionName(doc.memoId, doc._id), creator, reactionType: doc.reactionType, createTime: toTimestamp(doc.createTime) };
}

/** The reactions of each memo, oldest first, in one query, read memo by memo in the order of the memoId index. */
export async function reactionsFor(reactions: Collection<ReactionDoc>, memoIds: readonly string[]): Promise<Map<string, ReactionDoc[]>> {
	const result = new Map<string, ReactionDoc[]>();
	if (memoIds.length === 0) return result;
	for (const doc of await reactions.find({ memoId: { $in: [...memoIds] } }, { sort: { memoId: 1, createTime: 1, _id: 1 } })) {
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
	if (/\p{Cs}/u.test(type) || Buffer.byteLength(type, "utf8") > MAX_REACTION_TYPE_BYTES) {
		throw invalidArgument(`reaction.reactionType must be 1-${MAX_REACTION_TYPE_BYTES} bytes of UTF-8`);
	}
	return type;
}

/**
 * The caller's reaction set to `reactionType`: replaced in place when it exists (same name
 * and createTime), else inserted. Two concurrent first reactions meet at the unique index;
 * the loser then updates the winner's document, so exactly one remains.
 */
export async function upsertReaction(reactions: Collection<ReactionDoc>, memoId: string, creatorId: string, reactionType: string, now: number): Promise<ReactionDoc> {
	for (let attempt = 0; attempt < 3; attempt++) {
		const updated = await reactions.findOneAndUpdate({ memoId, creatorId }, { $set: { reactionType } });
		if (updated !== null) return updated;
		const doc: ReactionDoc = { _id: generateId(), memoId, creatorId, reactionType, createTime: now };
		try {
			return await reactions.insert(doc);
		} catch (err) {
			if (!(err instanceof DuplicateKeyError)) throw err;
		}
	}
	throw internal("reaction upsert did not settle");
}

type ReactionCtx<P> = Context<P, RequestMeta>;

export const reactionActions: MemosActions = {
	/** UpsertMemoReaction (contract 7.10). */
	upsertMemoReaction: {
		async handler(ctx: ReactionCtx<{ memo?: unknown; reaction?: unknown }>) {
			const caller = ctx.meta.user;
			if (!caller) throw unauthenticated();
			const id = pathId(ctx.params.memo);
			const reactionType = parseReactionType(ctx.params.reaction);
			assertReadable(await this.memoCollection().findOne({ _id: id }), id, caller, await this.callerSpaces(ctx));
			const doc = await upsertReaction(reactionCollection(this.broker), id, caller.id, reactionType, ctx.meta.requestTime ?? Date.now());
			const names = await this.creatorNames(ctx, [caller.id]);
			return toReactionJson(doc, names.get(caller.id) ?? `users/${caller.username}`);
		}
	},

	/** ListMemoReactions (contract 7.10): read access to the memo; oldest first. */
	listMemoReactions: {
		async handler(ctx: ReactionCtx<{ memo?: unknown; pageSize?: unknown; pageToken?: unknown }>) {
			const caller = ctx.meta.user ?? null;
			const id = pathId(ctx.params.memo);
			const pageSize = pageSizeParam(ctx.params.pageSize);
			if (ctx.params.pageToken !== undefined && typeof ctx.params.pageToken !== "string") throw invalidArgument("pageToken must be a string");
			assertReadable(await this.memoCollection().findOne({ _id: id }), id, caller, await this.callerSpaces(ctx));
			const page = await listPage(reactionCollection(this.broker), {
				operation: LIST_MEMO_REACTIONS,
				query: { memo: id },
				pageSize,
				pageToken: ctx.params.pageToken,
				sort: { createTime: 1, _id: 1 },
				keyTypes: { createTime: "number", _id: "string" },
				branches: [{ memoId: id }]
			});
			const names = await this.creatorNames(ctx, page.items.map(doc => doc.creatorId));
			return { reactions: page.items.map(doc => toReactionJson(doc, names.get(doc.creatorId) ?? "")), nextPageToken: page.nextPageToken };
		}
	},

	/** DeleteMemoReaction (contract 7.10): its creator or an instance ADMIN; another memo's reaction is NOT_FOUND. */
	deleteMemoReaction: {
		async handler(ctx: ReactionCtx<{ memo?: unknown; reaction?: unknown }>): Promise<void> {
			const caller = ctx.meta.user;
			if (!caller) throw unauthenticated();
			const memoId = pathId(ctx.params.memo);
			const reactionId = pathId(ctx.params.reaction);
			const memo = await this.memoCollection().findOne({ _id: memoId, deleteTime: null });
			const reactions = reactionCollection(this.broker);
			const reaction = memo === null ? null : await reactions.findOne({ _id: reactionId, memoId });
			if (reaction === null) throw notFound(`reaction "${formatReactionName(memoId, reactionId)}" not found`);
			if (reaction.creatorId !== caller.id && caller.role !== "ADMIN") throw permissionDenied("only the reaction's creator or an admin may delete it");
			await reactions.remove({ _id: reactionId, memoId });
		}
	}
};
