import type { Context, ServiceSchema } from "moleculer";
import { signedIn, type RequestMeta } from "../../shared/caller.js";
import { alreadyExists, notFound } from "../../shared/errors.js";
import { pathId } from "../../shared/ids.js";
import { formatName } from "../../shared/names.js";
import { listPage } from "../../shared/paging/list-page.js";
import { call } from "../../shared/contract.js";
import { fieldOf, messageOf, queryBoolOf } from "../../shared/request-message.js";
import { nextSequence } from "../../shared/sequence.js";
import { countMemoCreated } from "../../shared/runtime/business-metrics.js";
import { errorLog } from "../../shared/runtime/log-error.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import { InstanceSettingsMixin } from "../../shared/settings/instance-settings.mixin.js";
import { DuplicateKeyError, type Collection } from "../../shared/store/document-store.js";
import { attachmentsActions, type LinkTarget } from "../attachments/attachments.contract.js";
import { authActions } from "../auth/auth.contract.js";
import { deriveContent } from "./content/derive-content.js";
import { compileMemoFilter, parseMemoFilter } from "./filter/memo-filter.js";
import { parseMemoOrderBy } from "./filter/order-by.js";
import { candidateBranches, candidateTags } from "./list-query.js";
import { ensureMemoIndexes } from "./memo-indexes.js";
import { parseListMemosQuery } from "./list-params.js";
import { assertCanDelete, assertCanUpdate, assertReadable } from "./memo-access.js";
import { memoAccessInfo } from "./memo-access-info.js";
import { assertCanPlace, readableInSpace } from "./memo-spaces.js";
import { MemoSpacesMixin } from "./memo-spaces.mixin.js";
import { parseCreateMemo, type CreateMemoParams } from "./memo-create.js";
import { MEMOS, type MemoDoc } from "./memo-doc.js";
import { MIN_CONTENT_LENGTH_LIMIT, leavesVisibilityUnspecified } from "./memo-fields.js";
import { memoUpdate, parseUpdateMemo, type UpdateMemoParams } from "./memo-update.js";
import { commentActions } from "./comments.js";
import { linkMetadataActions } from "./link-metadata/link-metadata.js";
import { deleteUserDataAction } from "./delete-user-data.js";
import { memoResponses } from "./memo-responses.js";
import type { MemoResponseOptions, MemosMethods, MemosSettings, MemosVars } from "./memos-schema.js";
import { reactionActions } from "./reactions.js";
import { assertRelatable, detachMemos, parseReferences, relationActions, relationCollection, replaceReferences } from "./relations.js";
import { ensureMemoExtrasIndexes, purgeMemoExtras } from "./memo-extras.js";
import { shareActions } from "./shares.js";
import { getUserStats, listAllUserStats, type UserStatsDeps } from "./user-stats.js";

/** Soft-deleted memos are purged this long after deletion (contract 7.1, 14). */
export const DELETED_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

const SEQUENCES = "memo_sequences";

/** The JS type of each sortable memo field, to check positions read from page tokens. */
const SORT_KEY_TYPES = {
	pinned: "boolean",
	createTime: "number",
	updateTime: "number",
	_id: "string",
	seq: "number"
} as const;

const LIST_MEMOS = "ListMemos";

type MemoCtx<P> = Context<P, RequestMeta>;


/** What the attachments service needs to link attachments to `memo` (contract 7.9). */
function linkTarget(memo: MemoDoc): LinkTarget {
	return { id: memo._id, creatorId: memo.creatorId, spaceId: memo.spaceId, spaceReadable: readableInSpace(memo) };
}


const MemosService: ServiceSchema<MemosSettings, MemosMethods, MemosVars> = {
	name: "memos",
	// Mixins are typed with their own `this`; `mixins` takes untyped schemas.
	mixins: [InstanceSettingsMixin as Partial<ServiceSchema>, MemoSpacesMixin as Partial<ServiceSchema>],

	settings: {
		purgeIntervalMs: 60 * 60 * 1000
	},

	actions: {
		...commentActions,
		...relationActions,
		...reactionActions,
		...shareActions,
		...deleteUserDataAction,
		...linkMetadataActions,

		/** For the attachments service: creators, spaces and the caller's read right of memos (memo-access-info.ts). */
		accessInfo: {
			visibility: "public",
			async handler(ctx: MemoCtx<{ memoIds?: string[] }>) {
				return memoAccessInfo(this.memoCollection(), ctx.params.memoIds ?? [], ctx, await this.callerSpaces(ctx));
			}
		},

		/** For the attachments service: SetMemoAttachments sets the memo's updateTime (contract 7.9). */
		touch: {
			visibility: "public",
			async handler(ctx: MemoCtx<{ memoId: string; time: number }>): Promise<void> {
				await this.memoCollection().update({ _id: ctx.params.memoId, deleteTime: null }, { $set: { updateTime: ctx.params.time } });
			}
		},

		/**
		 * The memos counter of InstanceStats (contract 4.11), for the instance service: memos that exist for their
		 * users (NORMAL and ARCHIVED, comments included); soft-deleted ones are hidden everywhere else, so not
		 * counted. Answered from the `deleteTime` index.
		 */
		stats: {
			visibility: "public",
			async handler(): Promise<{ memoCount: number }> {
				return { memoCount: await this.memoCollection().count({ deleteTime: null }) };
			}
		},

		/** GetUserStats (contract 16): `users/{user}:getStats`, over that user's memos the caller can read. */
		getUserStats: {
			async handler(ctx: MemoCtx<{ user?: unknown }>) {
				return getUserStats(await this.userStatsDeps(ctx), ctx.params.user);
			}
		},

		/** ListAllUserStats (contract 16): `users:stats`, per user with memos the caller can read. */
		listAllUserStats: {
			async handler(ctx: MemoCtx<{ state?: unknown; filter?: unknown }>) {
				return listAllUserStats(await this.userStatsDeps(ctx), ctx.params);
			}
		},

		/** ListMemos (contract 7.2): candidates as index-served branches, filter, order; at most pageSize + 1 entries read per branch. */
		listMemos: {
			async handler(ctx: MemoCtx<Record<string, unknown>>) {
				const caller = ctx.meta.user ?? null;
				const query = parseListMemosQuery(ctx.params);
				const filter = parseMemoFilter(query.filter);
				const sort = parseMemoOrderBy(query.orderBy);
				// The token is bound to everything that selects or orders the list, the caller included.
				const bound = {
					filter: query.filter,
					orderBy: query.orderBy,
					state: query.state,
					showDeleted: query.showDeleted,
					caller: caller?.id ?? null
				};
				const branches = candidateBranches(caller, query.state, query.showDeleted, [...(await this.callerSpaces(ctx)).keys()]);

				const creatorIds = new Map<string, string>();
				if (branches.length > 0 && filter.usernames.length > 0) {
					const users = await call(ctx, authActions.lookupUsers, { usernames: filter.usernames });
					for (const user of users) creatorIds.set(user.username, user.id);
				}
				const tags = filter.readsTags ? await candidateTags(this.memoCollection(), branches) : undefined;
				const now = ctx.meta.requestTime ?? Date.now();
				const page = await listPage(this.memoCollection(), {
					operation: LIST_MEMOS,
					query: bound,
					pageSize: query.pageSize,
					pageToken: query.pageToken,
					sort,
					keyTypes: SORT_KEY_TYPES,
					branches,
					where: compileMemoFilter(filter, { now, creatorIds, tags })
				});
				return { memos: await this.memoResponses(ctx, page.items, { withDeleteTime: query.showDeleted }), nextPageToken: page.nextPageToken };
			}
		},

		/** CreateMemo (contract 7.3). */
		createMemo: {
			async handler(ctx: MemoCtx<CreateMemoParams>) {
				return this.insertMemo(ctx, ctx.params, null);
			}
		},

		/** GetMemo (contract 7.4): the read rule of 1.10. */
		getMemo: {
			async handler(ctx: MemoCtx<{ memo?: unknown }>) {
				const id = pathId(ctx.params.memo);
				const memo = await this.memoCollection().findOne({ _id: id });
				assertReadable(memo, id, ctx.meta.user ?? null, await this.callerSpaces(ctx));
				const [json] = await this.memoResponses(ctx, [memo]);
				return json;
			}
		},

		/** UpdateMemo (contract 7.5). */
		updateMemo: {
			async handler(ctx: MemoCtx<UpdateMemoParams & { memo?: unknown }>) {
				const caller = signedIn(ctx);
				const id = pathId(ctx.params.memo);
				const now = ctx.meta.requestTime ?? Date.now();
				const changes = parseUpdateMemo(ctx.params, await this.contentLengthLimit(), now);
				const relatedIds = changes.relations === undefined ? undefined : parseReferences(changes.relations, id);
				const memo = await this.memoCollection().findOne({ _id: id });
				assertCanUpdate(memo, id, caller);
				if (relatedIds !== undefined) await assertRelatable(this.memoCollection(), relatedIds, caller, await this.callerSpaces(ctx));
				await this.checkSpaceMove(ctx, memo, changes.spaceId);
				if (changes.attachments !== undefined) await call(ctx, attachmentsActions.linkForMemo, { memo: linkTarget(memo), attachments: changes.attachments, apply: false });
				const updated = await this.memoCollection().findOneAndUpdate({ _id: id, deleteTime: null }, memoUpdate(memo, changes));
				// Deleted between the read and the write.
				if (updated === null) throw notFound(`memo "memos/${id}" not found`);
				await this.attachmentsFollow(ctx, memo, updated);
				if (changes.attachments !== undefined) await call(ctx, attachmentsActions.linkForMemo, { memo: linkTarget(updated), attachments: changes.attachments, apply: true });
				if (relatedIds !== undefined) await replaceReferences(relationCollection(this.broker), id, relatedIds, now);
				const [json] = await this.memoResponses(ctx, [updated]);
				return json;
			}
		},

		/** DeleteMemo (contract 7.6): soft delete, or purge with `force`. */
		deleteMemo: {
			async handler(ctx: MemoCtx<{ memo?: unknown; force?: unknown }>): Promise<void> {
				const caller = signedIn(ctx);
				const id = pathId(ctx.params.memo);
				const force = queryBoolOf(ctx.params, "force");
				const memos = this.memoCollection();
				const memo = await memos.findOne({ _id: id });
				assertCanDelete(memo, id, caller, force, await this.callerSpaces(ctx));
				await detachMemos(this.broker, [id]);
				if (force) {
					await memos.remove({ _id: id });
					await purgeMemoExtras(this.broker, [id]);
					await call(ctx, attachmentsActions.deleteForMemos, { memoIds: [id] });
					return;
				}
				const now = ctx.meta.requestTime ?? Date.now();
				const changed = await memos.update({ _id: id, deleteTime: null }, { $set: { deleteTime: now } });
				if (changed === 0) throw notFound(`memo "memos/${id}" not found`);
				await call(ctx, attachmentsActions.setMemosDeleted, { memoIds: [id], deleted: true });
			}
		}
	},

	methods: {
		memoCollection(): Collection<MemoDoc> {
			return documentsOf(this.broker).collection<MemoDoc>(MEMOS);
		},

		async userStatsDeps(ctx: Context<unknown, RequestMeta>): Promise<UserStatsDeps> {
			return {
				memos: this.memoCollection(),
				caller: ctx.meta.user ?? null,
				spaceIds: [...(await this.callerSpaces(ctx)).keys()],
				lookupUsers: query => call(ctx, authActions.lookupUsers, query)
			};
		},

		clockNow(): number {
			return Date.now();
		},

		/** A counter document: unique and increasing across every replica of the service. */
		async nextSeq(): Promise<number> {
			return nextSequence(documentsOf(this.broker), SEQUENCES, MEMOS);
		},

		async insertMemo(ctx: Context<unknown, RequestMeta>, params: CreateMemoParams, parentId: string | null): Promise<Record<string, unknown>> {
			const caller = signedIn(ctx);
			// A new memo without a visibility takes its creator's default (user setting GENERAL, contract 16); a comment stays PRIVATE.
			const defaultVisibility = parentId === null && leavesVisibilityUnspecified(params.memo) ? await call(ctx, authActions.defaultMemoVisibility, { userId: caller.id }) : "PRIVATE";
			const input = parseCreateMemo(params, await this.contentLengthLimit(), defaultVisibility);
			const relatedIds = parseReferences(fieldOf(messageOf(params.memo, "memo"), "relations"), input.id);
			await assertRelatable(this.memoCollection(), relatedIds, caller, await this.callerSpaces(ctx));
			assertCanPlace(await this.callerSpaces(ctx), input.spaceId);
			const now = ctx.meta.requestTime ?? Date.now();
			const memo: MemoDoc = {
				_id: input.id,
				seq: await this.nextSeq(),
				creatorId: caller.id,
				content: input.content,
				visibility: input.visibility,
				state: "NORMAL",
				pinned: input.pinned,
				createTime: input.createTime ?? now,
				updateTime: input.updateTime ?? now,
				...deriveContent(input.content),
				location: input.location,
				spaceId: input.spaceId,
				parentId,
				deleteTime: null
			};
			const links = input.attachments === undefined ? undefined : { memo: linkTarget(memo), attachments: input.attachments };
			if (links !== undefined) await call(ctx, attachmentsActions.linkForMemo, { ...links, apply: false });
			try {
				await this.memoCollection().insert(memo);
			} catch (err) {
				// Soft-deleted memos keep their document, so their ids stay taken until purged.
				if (err instanceof DuplicateKeyError) throw alreadyExists(`memo "memos/${input.id}" already exists`);
				throw err;
			}
			countMemoCreated(this.broker, parentId === null ? "memo" : "comment");
			// A new memo has only the attachments it was created with: no `attachments.forMemos` call.
			const attachments = links === undefined ? [] : ((await call(ctx, attachmentsActions.linkForMemo, { ...links, apply: true })) ?? []);
			await replaceReferences(relationCollection(this.broker), memo._id, relatedIds, now);
			const [json] = await this.memoResponses(ctx, [memo], { attachments: { [memo._id]: attachments } });
			return json;
		},

		memoResponses(ctx: Context<unknown, RequestMeta>, docs: MemoDoc[], options: MemoResponseOptions = {}): Promise<Record<string, unknown>[]> {
			return memoResponses(this, ctx, docs, options);
		},

		async contentLengthLimit(): Promise<number> {
			const limit = (await this.instanceSetting("MEMO_RELATED")).contentLengthLimit;
			return typeof limit === "number" ? limit : MIN_CONTENT_LENGTH_LIMIT;
		},

		async creatorNames(ctx: Context, creatorIds: Iterable<string>): Promise<Map<string, string>> {
			const ids = [...new Set(creatorIds)];
			const names = new Map<string, string>();
			if (ids.length === 0) return names;
			const users = await call(ctx, authActions.lookupUsers, { ids });
			for (const user of users) names.set(user.id, formatName("user", user.username));
			return names;
		},

		async attachmentsOf(ctx: Context, memoIds: string[]): Promise<Record<string, Record<string, unknown>[]>> {
			if (memoIds.length === 0) return {};
			return call(ctx, attachmentsActions.forMemos, { memoIds });
		},

		/** Erases memos soft-deleted more than the retention period before `now`, with their attachments. */
		async purgeExpiredMemos(now: number): Promise<number> {
			const expired = { deleteTime: { $lt: now - DELETED_RETENTION_MS } };
			const ids = (await this.memoCollection().find(expired, { projection: { _id: 1 } })).map(memo => memo._id);
			if (ids.length === 0) return 0;
			const purged = await this.memoCollection().remove({ _id: { $in: ids } }, { multi: true });
			await purgeMemoExtras(this.broker, ids);
			await call(this.broker, attachmentsActions.deleteForMemos, { memoIds: ids });
			return purged;
		}
	},

	async started() {
		await ensureMemoIndexes(this.memoCollection());
		await ensureMemoExtrasIndexes(this.broker);
		await this.purgeExpiredMemos(this.clockNow());
		this.purgeTimer = setInterval(() => {
			this.purgeExpiredMemos(this.clockNow()).catch((err: unknown) => this.logger.warn(errorLog(err), "purging deleted memos failed"));
		}, this.settings.purgeIntervalMs);
		this.purgeTimer.unref();
	},

	stopped() {
		clearInterval(this.purgeTimer);
	}
};

export default MemosService;
