import type { Caller } from "../../shared/caller.js";
import { invalidArgument, notFound } from "../../shared/errors.js";
import { formatName, parseName } from "../../shared/names.js";
import { pageOf, pagePosition, type ListPageSpec } from "../../shared/paging/list-page.js";
import { enumOf, fieldOf, optionalMessageOf, stringOf } from "../../shared/request-message.js";
import { DuplicateKeyError, type Filter } from "../../shared/store/document-store.js";
import { assertCanUpdate, assertReadable, canRead } from "./memo-access.js";
import type { MemoDoc, RelationDoc } from "./memo-doc.js";
import { NO_SPACES, type SpaceRoles } from "./memo-spaces.js";
import type { MemosDeps } from "./memos-deps.js";
import type { MemosStore } from "./memos-store.js";

/**
 * Memo relations (contract 4.2, 7.8), every rule of them. REFERENCE relations are documents of
 * the store's `relations`, one per (memo, related memo), whose `_id` is made of the pair so that
 * duplicates cannot exist. A COMMENT relation is not stored apart: it is the comment memo's
 * `parentId`, so CreateMemoComment writes the comment and its relation in one insert and
 * DeleteMemo drops it with one update (contract 7.7: nothing can be half-written).
 */

const RELATION_TYPES = ["TYPE_UNSPECIFIED", "REFERENCE", "COMMENT"] as const;
const LIST_MEMO_RELATIONS = "ListMemoRelations";

type RelationType = "REFERENCE" | "COMMENT";

/**
 * A relation as lists order it: oldest first by `t`, ties broken by `k`, a key unique among
 * all relations (`r:…` for a reference, `c:{commentId}` for a comment's relation).
 */
interface RelationItem {
	t: number;
	k: string;
	type: RelationType;
	memoId: string;
	relatedMemoId: string;
}

function referenceId(memoId: string, relatedMemoId: string): string {
	return `r:${memoId}:${relatedMemoId}`;
}

function referenceItem(doc: RelationDoc): RelationItem {
	return { t: doc.createTime, k: doc._id, type: "REFERENCE", memoId: doc.memoId, relatedMemoId: doc.relatedMemoId };
}

/** The COMMENT relation a comment memo holds through its `parentId`. */
function commentItem(comment: MemoDoc & { parentId: string }): RelationItem {
	return { t: comment.createTime, k: `c:${comment._id}`, type: "COMMENT", memoId: comment._id, relatedMemoId: comment.parentId };
}

/** Relation lists' order as a keyset sort over RelationItem, for their page tokens. */
const RELATION_ORDER = { t: 1, k: 1 } as const;
const RELATION_KEY_TYPES = { t: "number", k: "string" } as const;

/** The position after which a relation page starts (RELATION_ORDER's keys). */
interface RelationPosition {
	t: number;
	k: string;
}

function compareItems(a: RelationItem, b: RelationItem): number {
	if (a.t !== b.t) return a.t - b.t;
	return a.k < b.k ? -1 : a.k > b.k ? 1 : 0;
}

/**
 * Whether the caller may see a memo at the other end of a relation: the read rule of 1.10
 * without its error (deleted: no; archived: its creator only; else the visibility rules).
 */
function readableBy(memo: MemoDoc | undefined, caller: Caller | null, spaces: SpaceRoles = NO_SPACES): boolean {
	if (memo === undefined || memo.deleteTime !== null) return false;
	if (memo.state === "ARCHIVED" && caller?.id !== memo.creatorId) return false;
	return canRead(memo, caller, spaces);
}

/** The MemoRelation message (contract 4.2); `docs` holds both ends. */
function toRelationJson(item: RelationItem, docs: ReadonlyMap<string, MemoDoc>): Record<string, unknown> {
	const end = (id: string) => ({ name: formatName("memo", id), snippet: docs.get(id)?.snippet ?? "" });
	return { memo: end(item.memoId), relatedMemo: end(item.relatedMemoId), type: item.type };
}

/** Filters selecting the items after a position, for references (keyed by `_id`) and comments (keyed by `c:` + `_id`). */
function afterReference(after: RelationPosition): Filter {
	return { $or: [{ createTime: { $gt: after.t } }, { createTime: after.t, _id: { $gt: after.k } }] };
}

function afterComment(after: RelationPosition): Filter {
	// Every `c:` key sorts before every `r:` key, so past a reference no comment of the same time is left.
	const sameTime: Filter[] = after.k.startsWith("c:") ? [{ createTime: after.t, _id: { $gt: after.k.slice(2) } }] : [];
	return { $or: [{ createTime: { $gt: after.t } }, ...sameTime] };
}

/**
 * Up to `limit` relations touching `memo` (both directions, both types) after `after`, in
 * list order: one query on references, one on its comments, and its own COMMENT relation.
 */
async function relationItemsAfter(
	store: MemosStore,
	memo: MemoDoc,
	after: RelationPosition | null,
	limit: number
): Promise<RelationItem[]> {
	// Three index-served branches (shared/paging/list-page.ts): each direction of references, and
	// the comments; past the first page, each read starts at the position's time in its index.
	const branch = (filter: Filter, afterFilter: (position: RelationPosition) => Filter): Filter =>
		after === null ? filter : { $and: [filter, { createTime: { $gte: after.t } }, afterFilter(after)] };
	const order = { sort: { createTime: 1, _id: 1 } as const, limit };
	const [outgoing, incoming, commentDocs] = await Promise.all([
		store.relations.find(branch({ memoId: memo._id }, afterReference), order),
		store.relations.find(branch({ relatedMemoId: memo._id }, afterReference), order),
		store.memos.find(branch({ parentId: memo._id, deleteTime: null }, afterComment), order)
	]);
	const references = new Map([...outgoing, ...incoming].map(doc => [doc._id, doc]));
	const items = [...[...references.values()].map(referenceItem), ...commentDocs.map(doc => commentItem(doc as MemoDoc & { parentId: string }))];
	if (typeof memo.parentId === "string") {
		const own = commentItem(memo as MemoDoc & { parentId: string });
		if (after === null || compareItems(own, { ...own, t: after.t, k: after.k }) > 0) items.push(own);
	}
	return items.sort(compareItems).slice(0, limit);
}

/**
 * The relations of each memo of `docs` as memo responses carry them (contract 4.1): both
 * directions, only where the other memo is readable by the caller, oldest first. A fixed
 * number of queries whatever the number of memos.
 */
export async function relationsFor(
	store: MemosStore,
	docs: readonly MemoDoc[],
	caller: Caller | null,
	spaces: SpaceRoles = NO_SPACES
): Promise<Map<string, Record<string, unknown>[]>> {
	const result = new Map<string, Record<string, unknown>[]>();
	if (docs.length === 0) return result;
	const ids = docs.map(doc => doc._id);
	const [references, comments] = await Promise.all([
		store.relations.find({ $or: [{ memoId: { $in: ids } }, { relatedMemoId: { $in: ids } }] }),
		store.memos.find({ parentId: { $in: ids }, deleteTime: null })
	]);
	const items = [
		...references.map(referenceItem),
		...comments.map(doc => commentItem(doc as MemoDoc & { parentId: string })),
		...docs.filter(doc => typeof doc.parentId === "string").map(doc => commentItem(doc as MemoDoc & { parentId: string }))
	].sort(compareItems);
	const known = new Map<string, MemoDoc>();
	for (const doc of [...docs, ...comments]) known.set(doc._id, doc);
	const missing = [...new Set(items.flatMap(item => [item.memoId, item.relatedMemoId]))].filter(id => !known.has(id));
	if (missing.length > 0) for (const doc of await store.memos.find({ _id: { $in: missing } })) known.set(doc._id, doc);

	const wanted = new Set(ids);
	const seen = new Set<string>();
	for (const item of items) {
		for (const [self, other] of [
			[item.memoId, item.relatedMemoId],
			[item.relatedMemoId, item.memoId]
		] as const) {
			// A comment listed among the memos and found as a comment of another listed memo appears twice.
			if (!wanted.has(self) || seen.has(`${self}|${item.k}`) || !readableBy(known.get(other), caller, spaces)) continue;
			seen.add(`${self}|${item.k}`);
			const list = result.get(self) ?? [];
			list.push(toRelationJson(item, known));
			result.set(self, list);
		}
	}
	return result;
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
export async function assertRelatable(store: MemosStore, relatedIds: readonly string[], caller: Caller | null, spaces: SpaceRoles): Promise<void> {
	if (relatedIds.length === 0) return;
	const docs = new Map((await store.memos.find({ _id: { $in: [...relatedIds] } })).map(doc => [doc._id, doc]));
	for (const id of relatedIds) {
		if (!readableBy(docs.get(id), caller, spaces)) throw notFound(`related memo "memos/${id}" not found`);
	}
}

/**
 * Makes `relatedIds` the memo's outgoing REFERENCE set. Each relation is its own document
 * with a deterministic id, so a repeated or concurrent call converges on the same set and
 * relations kept keep their createTime.
 */
export async function replaceReferences(store: MemosStore, memoId: string, relatedIds: readonly string[], now: number): Promise<void> {
	const { relations } = store;
	await relations.remove({ memoId, relatedMemoId: { $nin: [...relatedIds] } }, { multi: true });
	const existing = new Set((await relations.find({ memoId }, { projection: { relatedMemoId: 1 } })).map(doc => doc.relatedMemoId));
	await addReferences(store, memoId, relatedIds.filter(id => !existing.has(id)), now);
}

/**
 * Adds REFERENCE relations from the memo to `relatedIds` (a memo just created has no others, so
 * CreateMemo writes only these); one that exists already is kept.
 */
export async function addReferences(store: MemosStore, memoId: string, relatedIds: readonly string[], now: number): Promise<void> {
	for (const relatedMemoId of relatedIds) {
		try {
			await store.relations.insert({ _id: referenceId(memoId, relatedMemoId), memoId, relatedMemoId, createTime: now });
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
export async function detachMemos(store: MemosStore, memoIds: readonly string[]): Promise<void> {
	if (memoIds.length === 0) return;
	const ids = [...memoIds];
	await store.relations.remove({ $or: [{ memoId: { $in: ids } }, { relatedMemoId: { $in: ids } }] }, { multi: true });
	await store.memos.update({ $or: [{ parentId: { $in: ids } }, { _id: { $in: ids }, parentId: { $ne: null } }] }, { $set: { parentId: null } }, { multi: true });
}

/** SetMemoRelations (contract 7.8): the memo's REFERENCE set becomes `relations`; the caller then moves its update time (memo-touch.ts). */
export async function setMemoRelations(deps: MemosDeps, caller: Caller, id: string, relations: unknown, now: number): Promise<void> {
	const relatedIds = parseReferences(relations, id);
	const { store } = deps;
	const spaces = await deps.peers.spacesOf(caller);
	assertCanUpdate(await store.memos.findOne({ _id: id }), id, caller, spaces);
	await assertRelatable(store, relatedIds, caller, spaces);
	await replaceReferences(store, id, relatedIds, now);
}

/**
 * ListMemoRelations (contract 7.8): both directions, oldest first, skipping relations whose
 * other memo the caller cannot read. Each round is one query per source and one batched
 * read of the other memos; rounds repeat only while unreadable relations leave the page short.
 */
export async function listMemoRelations(
	deps: MemosDeps,
	caller: Caller | null,
	id: string,
	request: Pick<ListPageSpec, "pageSize" | "pageToken">
): Promise<{ relations: Record<string, unknown>[]; nextPageToken: string }> {
	const { store } = deps;
	const memo = await store.memos.findOne({ _id: id });
	const spaces = await deps.peers.spacesOf(caller);
	assertReadable(memo, id, caller, spaces);
	const bound = { memo: id, caller: caller?.id ?? null };
	const list = { operation: LIST_MEMO_RELATIONS, query: bound, ...request, sort: RELATION_ORDER, keyTypes: RELATION_KEY_TYPES };
	let after: RelationPosition | null = pagePosition(list) as RelationPosition | null;

	const docs = new Map<string, MemoDoc>([[memo._id, memo]]);
	const kept: RelationItem[] = [];
	for (;;) {
		const batch = await relationItemsAfter(store, memo, after, request.pageSize + 1);
		const others = [...new Set(batch.map(item => (item.memoId === id ? item.relatedMemoId : item.memoId)))].filter(other => !docs.has(other));
		if (others.length > 0) for (const doc of await store.memos.find({ _id: { $in: others } })) docs.set(doc._id, doc);
		for (const item of batch) {
			if (readableBy(docs.get(item.memoId === id ? item.relatedMemoId : item.memoId), caller, spaces)) kept.push(item);
		}
		const last = batch.at(-1);
		if (kept.length > request.pageSize || batch.length <= request.pageSize || last === undefined) break;
		after = { t: last.t, k: last.k };
	}
	const page = pageOf(kept, list);
	return { relations: page.items.map(item => toRelationJson(item, docs)), nextPageToken: page.nextPageToken };
}
