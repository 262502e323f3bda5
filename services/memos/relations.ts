import type { Context, ServiceBroker } from "moleculer";
import type { Caller, RequestMeta } from "../../shared/caller.js";
import { invalidArgument, notFound, unauthenticated } from "../../shared/errors.js";
import { pathId } from "../../shared/ids.js";
import { parseName } from "../../shared/names.js";
import { pageOf, pagePosition, pageSizeParam } from "../../shared/paging/list-page.js";
import { enumOf, fieldOf, optionalMessageOf, stringOf } from "../../shared/request-message.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import { DuplicateKeyError, type Collection } from "../../shared/store/document-store.js";
import { assertCanUpdate, assertReadable } from "./memo-access.js";
import { MEMOS, type MemoDoc } from "./memo-doc.js";
import { NO_SPACES, type SpaceRoles } from "./memo-spaces.js";
import type { MemosActions } from "./memos-schema.js";
import {
	MEMO_RELATIONS,
	RELATION_KEY_TYPES,
	RELATION_ORDER,
	readableBy,
	referenceId,
	relationItemsAfter,
	toRelationJson,
	type RelationDoc,
	type RelationItem,
	type RelationPosition
} from "./relations-store.js";

const RELATION_TYPES = ["TYPE_UNSPECIFIED", "REFERENCE", "COMMENT"] as const;
const LIST_MEMO_RELATIONS = "ListMemoRelations";

export function relationCollection(broker: ServiceBroker): Collection<RelationDoc> {
	return documentsOf(broker).collection<RelationDoc>(MEMO_RELATIONS);
}

/** Indexes for both directions in list order (a memo's comments: memo-indexes.ts). */
export async function ensureRelationIndexes(broker: ServiceBroker): Promise<void> {
	const relations = relationCollection(broker);
	await relations.ensureIndex({ fields: { memoId: 1, createTime: 1, _id: 1 } });
	await relations.ensureIndex({ fields: { relatedMemoId: 1, createTime: 1, _id: 1 } });
}

function memoNameOf(value: unknown, field: string): string | undefined {
	const ref = optionalMessageOf(value, field);
	const name = ref === undefined ? "" : stringOf(fieldOf(ref, "name"), `${field}.name`);
	return name === "" ? undefined : parseName("memo", name, `${field}.name`);
}

/**
 * The related memo ids of a relations list (contract 7.8), in order, duplicates collapsed:
 * only REFERENCE (or unspecified) relations, each naming its related memo, and a `memo`
 * that, when given, is `selfId`. Relations to `selfId` itself are INVALID_ARGUMENT.
 */
export function parseReferences(value: unknown, selfId: string): string[] {
	if (value === undefined || value === null) return [];
	if (!Array.isArray(value)) throw invalidArgument("relations must be a list");
	const ids: string[] = [];
	for (const [i, raw] of value.entries()) {
		const field = `relations[${i}]`;
		const relation = optionalMessageOf(raw, field) ?? {};
		const type = enumOf(fieldOf(relation, "type"), RELATION_TYPES, `${field}.type`);
		if (type === "COMMENT") throw invalidArgument(`${field}: COMMENT relations are created by CreateMemoComment only`);
		const memo = memoNameOf(fieldOf(relation, "memo"), `${field}.memo`);
		if (memo !== undefined && memo !== selfId) throw invalidArgument(`${field}.memo must name the memo memos/${selfId}`);
		const related = memoNameOf(fieldOf(relation, "relatedMemo"), `${field}.relatedMemo`);
		if (related === undefined) throw invalidArgument(`${field}.relatedMemo.name is required`);
		if (related === selfId) throw invalidArgument(`${field}: a memo cannot relate to itself`);
		if (!ids.includes(related)) ids.push(related);
	}
	return ids;
}

/** Every related memo must exist, not be deleted, and be readable by the caller (else NOT_FOUND, contract 7.8). */
export async function assertRelatable(memos: Collection<MemoDoc>, relatedIds: readonly string[], caller: Caller | null, spaces: SpaceRoles = NO_SPACES): Promise<void> {
	if (relatedIds.length === 0) return;
	const docs = new Map((await memos.find({ _id: { $in: [...relatedIds] } })).map(doc => [doc._id, doc]));
	for (const id of relatedIds) {
		if (!readableBy(docs.get(id), caller, spaces)) throw notFound(`related memo "memos/${id}" not found`);
	}
}

/**
 * Makes `relatedIds` the memo's outgoing REFERENCE set. Each relation is its own document
 * with a deterministic id, so a repeated or concurrent call converges on the same set and
 * relations kept keep their createTime.
 */
export async function replaceReferences(relations: Collection<RelationDoc>, memoId: string, relatedIds: readonly string[], now: number): Promise<void> {
	await relations.remove({ memoId, relatedMemoId: { $nin: [...relatedIds] } }, { multi: true });
	const existing = new Set((await relations.find({ memoId }, { projection: { relatedMemoId: 1 } })).map(doc => doc.relatedMemoId));
	for (const relatedMemoId of relatedIds) {
		if (existing.has(relatedMemoId)) continue;
		try {
			await relations.insert({ _id: referenceId(memoId, relatedMemoId), memoId, relatedMemoId, createTime: now });
		} catch (err) {
			if (!(err instanceof DuplicateKeyError)) throw err;
		}
	}
}

/**
 * What deleting a memo does to relations (contract 7.6): every reference from or to it goes,
 * its own COMMENT relation goes, and its comments lose theirs, becoming ordinary memos (one
 * multi update).
 */
export async function detachMemos(broker: ServiceBroker, memoIds: readonly string[]): Promise<void> {
	if (memoIds.length === 0) return;
	const ids = [...memoIds];
	await relationCollection(broker).remove({ $or: [{ memoId: { $in: ids } }, { relatedMemoId: { $in: ids } }] }, { multi: true });
	await documentsOf(broker)
		.collection<MemoDoc>(MEMOS)
		.update({ $or: [{ parentId: { $in: ids } }, { _id: { $in: ids }, parentId: { $ne: null } }] }, { $set: { parentId: null } }, { multi: true });
}

type RelationsCtx<P> = Context<P, RequestMeta>;

export const relationActions: MemosActions = {
	/** SetMemoRelations (contract 7.8). */
	setMemoRelations: {
		async handler(ctx: RelationsCtx<{ memo?: unknown; relations?: unknown }>): Promise<void> {
			const caller = ctx.meta.user;
			if (!caller) throw unauthenticated();
			const id = pathId(ctx.params.memo);
			const relatedIds = parseReferences(ctx.params.relations, id);
			const memos = this.memoCollection();
			assertCanUpdate(await memos.findOne({ _id: id }), id, caller);
			await assertRelatable(memos, relatedIds, caller, await this.callerSpaces(ctx));
			const now = ctx.meta.requestTime ?? Date.now();
			await replaceReferences(relationCollection(this.broker), id, relatedIds, now);
			await memos.update({ _id: id, deleteTime: null }, { $set: { updateTime: now } });
		}
	},

	/**
	 * ListMemoRelations (contract 7.8): both directions, oldest first, skipping relations whose
	 * other memo the caller cannot read. Each round is one query per source and one batched
	 * read of the other memos; rounds repeat only while unreadable relations leave the page short.
	 */
	listMemoRelations: {
		async handler(ctx: RelationsCtx<{ memo?: unknown; pageSize?: unknown; pageToken?: unknown }>) {
			const caller = ctx.meta.user ?? null;
			const id = pathId(ctx.params.memo);
			const pageSize = pageSizeParam(ctx.params.pageSize);
			if (ctx.params.pageToken !== undefined && typeof ctx.params.pageToken !== "string") throw invalidArgument("pageToken must be a string");
			const memos = this.memoCollection();
			const memo = await memos.findOne({ _id: id });
			const spaces = await this.callerSpaces(ctx);
			assertReadable(memo, id, caller, spaces);
			const bound = { memo: id, caller: caller?.id ?? null };
			const list = { operation: LIST_MEMO_RELATIONS, query: bound, pageSize, pageToken: ctx.params.pageToken, sort: RELATION_ORDER, keyTypes: RELATION_KEY_TYPES };
			let after: RelationPosition | null = pagePosition(list) as RelationPosition | null;

			const relations = relationCollection(this.broker);
			const docs = new Map<string, MemoDoc>([[memo._id, memo]]);
			const kept: RelationItem[] = [];
			for (;;) {
				const batch = await relationItemsAfter(relations, memos, memo, after, pageSize + 1);
				const others = [...new Set(batch.map(item => (item.memoId === id ? item.relatedMemoId : item.memoId)))].filter(other => !docs.has(other));
				if (others.length > 0) for (const doc of await memos.find({ _id: { $in: others } })) docs.set(doc._id, doc);
				for (const item of batch) {
					if (readableBy(docs.get(item.memoId === id ? item.relatedMemoId : item.memoId), caller, spaces)) kept.push(item);
				}
				const last = batch.at(-1);
				if (kept.length > pageSize || batch.length <= pageSize || last === undefined) break;
				after = { t: last.t, k: last.k };
			}
			const page = pageOf(kept, list);
			return { relations: page.items.map(item => toRelationJson(item, docs)), nextPageToken: page.nextPageToken };
		}
	}
};
