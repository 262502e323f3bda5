import type { Context, ServiceBroker } from "moleculer";
import type { Caller, RequestMeta } from "../../shared/caller.js";
import { failedPrecondition, invalidArgument, notFound, permissionDenied, unauthenticated } from "../../shared/errors.js";
import { generateShareToken } from "../../shared/ids.js";
import { formatShareName } from "../../shared/names.js";
import { parseTimestamp, toTimestamp } from "../../shared/proto-json.js";
import { fieldOf, optionalMessageOf } from "../../shared/request-message.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import type { Collection } from "../../shared/store/document-store.js";
import type { MemoDoc } from "./memo-doc.js";
import type { MemosActions } from "./memos-schema.js";

/** Share links (contract 4.4, 7.11). The document id is the bearer token itself. */
export const MEMO_SHARES = "memo_shares";

export interface ShareDoc {
	_id: string;
	memoId: string;
	creatorId: string;
	createTime: number;
	/** Epoch ms; null never expires. */
	expireTime: number | null;
	[key: string]: unknown;
}

export function shareCollection(broker: ServiceBroker): Collection<ShareDoc> {
	return documentsOf(broker).collection<ShareDoc>(MEMO_SHARES);
}

export async function ensureShareIndexes(broker: ServiceBroker): Promise<void> {
	const shares = shareCollection(broker);
	await shares.ensureIndex({ fields: { memoId: 1, createTime: -1, _id: -1 } });
	await shares.ensureIndex({ fields: { creatorId: 1 } });
}

export function toShareJson(doc: ShareDoc): Record<string, unknown> {
	const json: Record<string, unknown> = { name: formatShareName(doc.memoId, doc._id), createTime: toTimestamp(doc.createTime) };
	if (doc.expireTime !== null) json.expireTime = toTimestamp(doc.expireTime);
	return json;
}

/** `expireTime` of a CreateMemoShare body: absent, or a time after `now` (contract 7.11). */
export function parseExpireTime(body: unknown, now: number): number | null {
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
export async function liveSharedMemo(broker: ServiceBroker, memos: Collection<MemoDoc>, token: unknown, now: number): Promise<MemoDoc | null> {
	if (typeof token !== "string" || token === "") return null;
	const share = await shareCollection(broker).findOne({ _id: token });
	if (share === null || (share.expireTime !== null && share.expireTime <= now)) return null;
	return memos.findOne({ _id: share.memoId, deleteTime: null, state: "NORMAL" });
}

/** Share links are managed by the memo's creator or an instance ADMIN (contract 7.11, rule 10). */
async function managedMemo(memos: Collection<MemoDoc>, id: string, caller: Caller | null | undefined): Promise<{ memo: MemoDoc; caller: Caller }> {
	if (!caller) throw unauthenticated();
	const memo = await memos.findOne({ _id: id, deleteTime: null });
	if (memo === null) throw notFound(`memo "memos/${id}" not found`);
	if (memo.creatorId !== caller.id && caller.role !== "ADMIN") throw permissionDenied(`only the creator or an admin may manage the share links of memo "memos/${id}"`);
	return { memo, caller };
}

type ShareCtx<P> = Context<P, RequestMeta>;

const pathId = (value: unknown) => (typeof value === "string" ? value : "");

export const shareActions: MemosActions = {
	/** CreateMemoShare (contract 7.11). */
	createMemoShare: {
		async handler(ctx: ShareCtx<{ memo?: unknown; memoShare?: unknown }>) {
			const id = pathId(ctx.params.memo);
			const { memo, caller } = await managedMemo(this.memoCollection(), id, ctx.meta.user);
			const now = ctx.meta.requestTime ?? Date.now();
			const expireTime = parseExpireTime(ctx.params.memoShare, now);
			if (memo.state !== "NORMAL") throw failedPrecondition(`memo "memos/${id}" is archived and cannot be shared`);
			const doc: ShareDoc = { _id: generateShareToken(), memoId: id, creatorId: caller.id, createTime: now, expireTime };
			await shareCollection(this.broker).insert(doc);
			return toShareJson(doc);
		}
	},

	/** ListMemoShares (contract 7.11): every link, expired ones included, newest first; not paginated. */
	listMemoShares: {
		async handler(ctx: ShareCtx<{ memo?: unknown }>) {
			const id = pathId(ctx.params.memo);
			await managedMemo(this.memoCollection(), id, ctx.meta.user);
			const docs = await shareCollection(this.broker).find({ memoId: id }, { sort: { createTime: -1, _id: -1 } });
			return { memoShares: docs.map(toShareJson) };
		}
	},

	/** DeleteMemoShare (contract 7.11): revokes at once; another memo's share is NOT_FOUND. */
	deleteMemoShare: {
		async handler(ctx: ShareCtx<{ memo?: unknown; share?: unknown }>): Promise<void> {
			const id = pathId(ctx.params.memo);
			const token = pathId(ctx.params.share);
			await managedMemo(this.memoCollection(), id, ctx.meta.user);
			const removed = await shareCollection(this.broker).remove({ _id: token, memoId: id });
			if (removed === 0) throw notFound(`share "${formatShareName(id, token)}" not found`);
		}
	},

	/** GetSharedMemo (contract 7.11): no authentication; `parent` omitted and `relations` empty. */
	getSharedMemo: {
		async handler(ctx: ShareCtx<{ shareToken?: unknown }>) {
			const memo = await liveSharedMemo(this.broker, this.memoCollection(), ctx.params.shareToken, ctx.meta.requestTime ?? Date.now());
			if (memo === null) throw notFound("share link not found");
			const [json] = await this.memoResponses(ctx, [memo], { shared: true });
			return json;
		}
	},

	/** For the attachments service's file route (contract 8.5): the memo id a live share token grants, or null. */
	resolveShare: {
		visibility: "public",
		async handler(ctx: ShareCtx<{ token?: unknown }>): Promise<{ memoId: string } | null> {
			const memo = await liveSharedMemo(this.broker, this.memoCollection(), ctx.params.token, ctx.meta.requestTime ?? Date.now());
			return memo === null ? null : { memoId: memo._id };
		}
	}
};
