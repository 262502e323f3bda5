import type { Caller } from "../../shared/caller.js";
import { formatName } from "../../shared/names.js";
import type { MemoDoc, ReactionDoc } from "./memo-doc.js";
import { toMemoJson } from "./memo-json.js";
import type { AttachmentsByMemo, MemosDeps } from "./memos-deps.js";
import { reactionsFor, toReactionJson } from "./reactions.js";
import { relationsFor } from "./relations.js";

export interface MemoResponseOptions {
	/** ListMemos with showDeleted (contract 4.1). */
	withDeleteTime?: boolean;
	/** GetSharedMemo: `parent` omitted, `relations` empty (contract 7.11). */
	shared?: boolean;
	/** The memos' attachments when the caller already has them (CreateMemo): no `attachments.forMemos` call. */
	attachments?: AttachmentsByMemo;
	/**
	 * CreateMemo's memo, created without relations: answered as created, with no relation and no
	 * reaction, so neither is read.
	 */
	asCreated?: boolean;
}

/**
 * Memo messages for `docs` with everything a response carries: the creators' and reactors'
 * names (one `auth.lookupUsers` call, none when the caller is the only one), attachments (one
 * `attachments.forMemos` call unless given), relations and reactions (a fixed number of
 * queries, none `asCreated`), whatever the number of memos.
 */
export async function memoResponses(
	deps: MemosDeps,
	caller: Caller | null,
	docs: readonly MemoDoc[],
	options: MemoResponseOptions = {}
): Promise<Record<string, unknown>[]> {
	if (docs.length === 0) return [];
	const ids = docs.map(doc => doc._id);
	const none = options.shared === true || options.asCreated === true;
	const [attachments, relations, reactions] = await Promise.all([
		options.attachments ?? deps.peers.attachmentsOf(ids),
		none ? new Map<string, Record<string, unknown>[]>() : relationsFor(deps.store, docs, caller, await deps.peers.spacesOf(caller)),
		options.asCreated === true ? new Map<string, ReactionDoc[]>() : reactionsFor(deps.store, ids)
	]);
	const userIds = [...docs.map(doc => doc.creatorId), ...[...reactions.values()].flat().map(reaction => reaction.creatorId)];
	// The caller's own name came with the request.
	const names = await deps.peers.userNames(caller === null ? userIds : userIds.filter(id => id !== caller.id));
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
