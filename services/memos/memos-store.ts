import { nextSequence, SEQ_INDEX } from "../../shared/sequence.js";
import type { Collection, DocumentStore, IndexSpec, Sort } from "../../shared/store/document-store.js";
import type { MemoCountDoc } from "./memo-count.js";
import type { MemoDoc, ReactionDoc, RelationDoc, ShareDoc } from "./memo-doc.js";
import { ensureNotificationIndexes, type NotificationDoc } from "./notifications/notification-doc.js";
import type { ShortcutDoc } from "./shortcuts.js";

const MEMOS = "memos";
const MEMO_RELATIONS = "memo_relations";
const MEMO_REACTIONS = "memo_reactions";
const MEMO_SHARES = "memo_shares";
const MEMO_SHORTCUTS = "memo_shortcuts";
const MEMO_NOTIFICATIONS = "memo_notifications";
const SEQUENCES = "memo_sequences";
const MEMO_TOTALS = "memo_totals";

/** The memos service's collections: memos and what each memo owns besides its document, and the creation counter. */
export interface MemosStore {
	memos: Collection<MemoDoc>;
	/** REFERENCE relations; COMMENT relations are the comments' `parentId` (relations.ts). */
	relations: Collection<RelationDoc>;
	reactions: Collection<ReactionDoc>;
	shares: Collection<ShareDoc>;
	/** Users' saved memo filters (contract 16). */
	shortcuts: Collection<ShortcutDoc>;
	/** Users' inboxes: MEMO_COMMENT and MEMO_MENTION notifications (contract 17). */
	notifications: Collection<NotificationDoc>;
	/** InstanceStats' count of memos (memo-count.ts). */
	totals: Collection<MemoCountDoc>;
	/** The creation sequence that breaks ties between equal sort keys (contract 6.4): unique and increasing across replicas. */
	nextSeq(): Promise<number>;
}

export function memosStore(documents: DocumentStore): MemosStore {
	return {
		memos: documents.collection<MemoDoc>(MEMOS),
		relations: documents.collection<RelationDoc>(MEMO_RELATIONS),
		reactions: documents.collection<ReactionDoc>(MEMO_REACTIONS),
		shares: documents.collection<ShareDoc>(MEMO_SHARES),
		shortcuts: documents.collection<ShortcutDoc>(MEMO_SHORTCUTS),
		notifications: documents.collection<NotificationDoc>(MEMO_NOTIFICATIONS),
		totals: documents.collection<MemoCountDoc>(MEMO_TOTALS),
		nextSeq: () => nextSequence(documents, SEQUENCES, MEMOS)
	};
}

/**
 * Every index of the memos collection. A list branch (readable-query.ts, list-query.ts) is an
 * equality prefix — parentId, state, deleteTime, then one owner group — and each index
 * continues it with the sort keys of one orderBy (contract 6.4), ending in the unique
 * tie-breaker, so a page reads at most pageSize + 1 entries per branch. A store scans an index
 * backwards for the opposite direction of every key, so one index serves an order and its
 * reverse; a compound order whose keys go different ways needs an index of its own.
 *
 * MongoDB allows 64 indexes on a collection: an index per owner group for every order would
 * exceed it. So `pinned` is made an equality in each branch (shared/paging/list-page.ts) for
 * every order that names it or has two keys before the tie-breaker (`pinnedSplit`): it drops out
 * of the order wherever it stands, and the compound orders share the indexes that begin with it.
 * Served: every order of `pinned` (anywhere) with at most two of create_time, update_time and
 * name, in any directions.
 *
 * Both time keys followed by `name` would need 8 more indexes per owner group (two key orders,
 * four direction patterns each: 78 indexes with _id's). There `name` decides only between
 * memos equal on both times, so such an order is read as a grouped order (`groupedRead`,
 * shared/paging/list-page.ts): the same two times with the sequence after them, which the
 * indexes above give, and the groups a page can end in read again by `_id` through one index
 * per owner group whose time keys are equalities there (the last tail below).
 */
const PREFIX = { parentId: 1, state: 1, deleteTime: 1 } as const;
const OWNER_GROUPS: Record<string, 1>[] = [{ creatorId: 1 }, { visibility: 1 }, { visibility: 1, spaceId: 1 }];
const SORT_TAILS: Record<string, 1 | -1>[] = [
	// One key, branches not split.
	{ createTime: -1, seq: -1 },
	{ updateTime: -1, seq: -1 },
	{ _id: -1 },
	// Split on pinned: pinned alone, or with one key, or two (the tie-breaker follows the last time key).
	{ pinned: -1, seq: -1 },
	{ pinned: -1, createTime: -1, seq: -1 },
	{ pinned: -1, updateTime: -1, seq: -1 },
	{ pinned: -1, _id: -1 },
	{ pinned: -1, createTime: -1, updateTime: -1, seq: -1 },
	{ pinned: -1, createTime: -1, updateTime: 1, seq: 1 },
	{ pinned: -1, updateTime: -1, createTime: -1, seq: -1 },
	{ pinned: -1, updateTime: -1, createTime: 1, seq: 1 },
	{ pinned: -1, createTime: -1, _id: -1 },
	{ pinned: -1, createTime: -1, _id: 1 },
	{ pinned: -1, updateTime: -1, _id: -1 },
	{ pinned: -1, updateTime: -1, _id: 1 },
	// One group of equal times (and pinned) by name, either way, for both key orders.
	{ pinned: -1, createTime: -1, updateTime: -1, _id: -1 }
];

/** Whether a ListMemos order is served by the indexes that begin with `pinned` (see above). */
export function pinnedSplit(sort: Sort): boolean {
	return Object.keys(sort).filter(key => key !== "seq").length > 1;
}

/**
 * For an order of both time keys then `name` (`pinned` anywhere), the order its groups are read
 * in: the same keys with the sequence in place of `name`, in the last time key's direction, as
 * the tails above have it; undefined for every other order.
 */
export function groupedRead(sort: Sort): Sort | undefined {
	const keys = Object.keys(sort).filter(key => key !== "pinned");
	const times = ["createTime", "updateTime"];
	if (keys.length !== 3 || keys[2] !== "_id" || !times.includes(keys[0]) || !times.includes(keys[1])) return undefined;
	const read: Sort = Object.fromEntries(Object.entries(sort).filter(([key]) => key !== "_id"));
	read.seq = sort[keys[1]];
	return read;
}

const MEMO_INDEXES: readonly IndexSpec[] = [
	...OWNER_GROUPS.flatMap(owner => SORT_TAILS.map(tail => ({ fields: { ...PREFIX, ...owner, ...tail } }))),
	// The tie-breaker of every page is handed out once (shared/sequence.ts, insertSequenced).
	SEQ_INDEX,
	// A memo's comments in relation-list order (relations.ts).
	{ fields: { parentId: 1, deleteTime: 1, createTime: 1, _id: 1 } },
	// Clean-ups: the purge of expired deletions (and the recount of memos not deleted, by id:
	// memo-count.ts), a space's memos, a deleted user's memos. The last
	// also reads a caller's soft-deleted memos (showDeleted, list-query.ts), and only those: a
	// range on deleteTime cannot precede the sort keys, so that branch alone is sorted apart,
	// at most the memos its caller deleted within the retention period.
	{ fields: { deleteTime: 1, _id: 1 } },
	{ fields: { spaceId: 1, deleteTime: 1 } },
	{ fields: { creatorId: 1, deleteTime: 1 } },
	// The repair passes: memos whose deletion is half-done (memo-cleanup.ts), whose notifications may be (notify-memo.ts).
	{ fields: { cleanup: 1 } },
	{ fields: { notifyPending: 1 } },
	// The relay pass: memos with changes not yet recorded as webhook deliveries (memo-outbox.ts).
	{ fields: { outboxPending: 1, _id: 1 } }
];

export async function ensureMemosIndexes(store: MemosStore): Promise<void> {
	for (const spec of MEMO_INDEXES) await store.memos.ensureIndex(spec);
	// The tag filters of lists test `tags`' elements in every row they read (filter/memo-filter-compile.ts).
	await store.memos.ensureArrayField("tags");
	// Relations in both directions in list order.
	await store.relations.ensureIndex({ fields: { memoId: 1, createTime: 1, _id: 1 } });
	await store.relations.ensureIndex({ fields: { relatedMemoId: 1, createTime: 1, _id: 1 } });
	// One reaction per (memo, user); a memo's reactions oldest first; a deleted user's.
	await store.reactions.ensureIndex({ fields: { memoId: 1, creatorId: 1 }, unique: true });
	await store.reactions.ensureIndex({ fields: { memoId: 1, createTime: 1, _id: 1 } });
	await store.reactions.ensureIndex({ fields: { creatorId: 1 } });
	// A memo's share links newest first; a deleted user's.
	await store.shares.ensureIndex({ fields: { memoId: 1, createTime: -1, _id: -1 } });
	await store.shares.ensureIndex({ fields: { creatorId: 1 } });
	// A user's shortcuts in list order; a deleted user's.
	await store.shortcuts.ensureIndex({ fields: { userId: 1, createTime: 1, _id: 1 } });
	await ensureNotificationIndexes(store.notifications);
}

/** A purged memo takes its reactions and share links along (contract 7.6); relations go at deletion (relations.ts, detachMemos). */
export async function purgeMemoExtras(store: MemosStore, memoIds: readonly string[]): Promise<void> {
	if (memoIds.length === 0) return;
	const memoId = { $in: [...memoIds] };
	await store.reactions.remove({ memoId }, { multi: true });
	await store.shares.remove({ memoId }, { multi: true });
}
