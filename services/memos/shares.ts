import type { Caller } from "../../shared/caller.js";
import { failedPrecondition, invalidArgument, notFound, unauthenticated } from "../../shared/errors.js";
import { generateShareToken } from "../../shared/ids.js";
import { formatShareName } from "../../shared/names.js";
import { parseTimestamp, toTimestamp } from "../../shared/proto-json.js";
import { fieldOf, optionalMessageOf } from "../../shared/request-message.js";
import { assertCanUpdate } from "./memo-access.js";
import type { MemoDoc, ShareDoc } from "./memo-doc.js";
import type { MemosDeps } from "./memos-deps.js";
import type { MemosStore } from "./memos-store.js";

/** Share links (contract 4.4, 7.11). The document id is the bearer token itself. */

export function toShareJson(doc: ShareDoc): Record<string, unknown> {
	const json: Record<string, unknown> = { name: formatShareName(doc.memoId, doc._id), createTime: toTimestamp(doc.createTime) };
	if (doc.expireTime !== null) json.expireTime = toTimestamp(doc.expireTime);
	return json;
}

/** `expireTime` of a CreateMemoShare body: absent, or a time after `now` (contract 7.11). */
function parseExpireTime(body: unknown, now: number): number | null {
	const share = optionalMessageOf(body, "memoShare");
	const raw = share === undefined ? undefined : fieldOf(share, "expireTime");
	if (raw === undefined) return null;
	const expireTime = parseTimestamp(raw, "expireTime");
	if (expireTime <= now) throw invalidArgument("expireTime must be in the future");
	return expireTime;
}

/**
 * The memo of a live share: the token exists, has not expired, and its memo is NORMAL and
 * not deleted; anything else is null (contract 7.11: all of it answers NOT_FOUND).
 */
export async function liveSharedMemo(store: MemosStore, token: unknown, now: number): Promise<MemoDoc | null> {
	if (typeof token !== "string" || token === "") return null;
	const share = await store.shares.findOne({ _id: token });
	if (share === null || (share.expireTime !== null && share.expireTime <= now)) return null;
	return store.memos.findOne({ _id: share.memoId, deleteTime: null, state: "NORMAL" });
}

/**
 * Share links are managed by the memo's creator or an instance ADMIN (contract 7.11, rule 10),
 * an ADMIN only on a memo the ADMIN can read (3.1).
 */
async function managedMemo(deps: MemosDeps, id: string, caller: Caller | null): Promise<{ memo: MemoDoc; caller: Caller }> {
	if (!caller) throw unauthenticated();
	const memo = await deps.store.memos.findOne({ _id: id });
	assertCanUpdate(memo, id, caller, await deps.peers.spacesOf(caller));
	return { memo, caller };
}

/** CreateMemoShare (contract 7.11). */
export async function createMemoShare(deps: MemosDeps, caller: Caller | null, id: string, body: unknown, now: number): Promise<ShareDoc> {
	const { memo, caller: creator } = await managedMemo(deps, id, caller);
	const expireTime = parseExpireTime(body, now);
	if (memo.state !== "NORMAL") throw failedPrecondition(`memo "memos/${id}" is archived and cannot be shared`);
	const doc: ShareDoc = { _id: generateShareToken(), memoId: id, creatorId: creator.id, createTime: now, expireTime };
	await deps.store.shares.insert(doc);
	return doc;
}

/** ListMemoShares (contract 7.11): every link, expired ones included, newest first; not paginated. */
export async function listMemoShares(deps: MemosDeps, caller: Caller | null, id: string): Promise<ShareDoc[]> {
	await managedMemo(deps, id, caller);
	return deps.store.shares.find({ memoId: id }, { sort: { createTime: -1, _id: -1 } });
}

/** DeleteMemoShare (contract 7.11): revokes at once; another memo's share is NOT_FOUND. */
export async function deleteMemoShare(deps: MemosDeps, caller: Caller | null, id: string, token: string): Promise<void> {
	await managedMemo(deps, id, caller);
	const removed = await deps.store.shares.remove({ _id: token, memoId: id });
	if (removed === 0) throw notFound(`share "${formatShareName(id, token)}" not found`);
}

