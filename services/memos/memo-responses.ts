import type { Context } from "moleculer";
import type { RequestMeta } from "../../shared/caller.js";
import { formatName } from "../../shared/names.js";
import type { MemoDoc } from "./memo-doc.js";
import { toMemoJson } from "./memo-json.js";
import type { MemoResponseOptions, MemosThis } from "./memos-schema.js";
import { reactionCollection, reactionsFor, toReactionJson } from "./reactions.js";
import { relationCollection } from "./relations.js";
import { relationsFor } from "./relations-store.js";

/**
 * Memo messages for `docs` with everything a response carries: the creators' and reactors'
 * names (one `auth.lookupUsers` call, none when the caller is the only one), attachments (one
 * `attachments.forMemos` call unless given), relations and reactions (a fixed number of
 * queries), whatever the number of memos.
 */
export async function memoResponses(
	service: MemosThis,
	ctx: Context<unknown, RequestMeta>,
	docs: readonly MemoDoc[],
	options: MemoResponseOptions
): Promise<Record<string, unknown>[]> {
	if (docs.length === 0) return [];
	const ids = docs.map(doc => doc._id);
	const caller = ctx.meta.user ?? null;
	const [attachments, relations, reactions] = await Promise.all([
		options.attachments ?? service.attachmentsOf(ctx, ids),
		options.shared === true ? new Map<string, Record<string, unknown>[]>() : relationsFor(relationCollection(service.broker), service.memoCollection(), docs, caller, await service.callerSpaces(ctx)),
		reactionsFor(reactionCollection(service.broker), ids)
	]);
	const userIds = [...docs.map(doc => doc.creatorId), ...[...reactions.values()].flat().map(reaction => reaction.creatorId)];
	// The caller's own name came with the request.
	const names = await service.creatorNames(ctx, caller === null ? userIds : userIds.filter(id => id !== caller.id));
	if (caller !== null) names.set(caller.id, formatName("user", caller.username));
	return docs.map(doc =>
		toMemoJson(doc, {
			creator: names.get(doc.creatorId) ?? "",
			withDeleteTime: options.withDeleteTime,
			attachments: attachments[doc._id],
			relations: relations.get(doc._id),
			reactions: (reactions.get(doc._id) ?? []).map(reaction => toReactionJson(reaction, names.get(reaction.creatorId) ?? "")),
			omitParent: options.shared
		})
	);
}
