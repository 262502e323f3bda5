import type { Context, Service, ServiceBroker, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { BoundedCache } from "../../shared/cache/bounded-cache.js";
import { invalidateOn } from "../../shared/cache/invalidate-on.js";
import { signedIn, type RequestMeta } from "../../shared/caller.js";
import type { DocumentStore } from "../../shared/store/document-store.js";
import { broadcast, call, onEvent, servicesChanged } from "../../shared/contract.js";
import { invalidArgument, notFound, unauthenticated } from "../../shared/errors.js";
import { pathId } from "../../shared/ids.js";
import { formatName } from "../../shared/names.js";
import { pageSizeParam } from "../../shared/paging/list-page.js";
import { queryBoolOf } from "../../shared/request-message.js";
import { countListCacheLookup, countMemoCreated } from "../../shared/runtime/business-metrics.js";
import { isActionNotYetOffered } from "../../shared/runtime/call-failures.js";
import { errorLog } from "../../shared/runtime/log-error.js";
import { documentsOf, resourcesOf } from "../../shared/runtime/resources.js";
import { InstanceSettingsMixin, type InstanceSettingsMethods } from "../../shared/settings/instance-settings.mixin.js";
import { attachmentsActions } from "../attachments/attachments.contract.js";
import { authActions, authEvents } from "../auth/auth.contract.js";
import { spacesActions, spacesEvents, type SpaceMemberEvent } from "../spaces/spaces.contract.js";
import { changeReaders } from "./change-readers.js";
import { createMemoComment, listMemoComments } from "./comments.js";
import { linkMetadata, linkMetadataCache, parseLinkUrl, parseLinkUrls, type LinkMetadataCache } from "./link-metadata/link-metadata.js";
import { parseListMemosQuery } from "./list-params.js";
import { listMemosResponse } from "./list-memos.js";
import { ListMemosCache } from "./list-memos-cache.js";
import { parseMemoFilter } from "./filter/memo-filter.js";
import { assertReadable } from "./memo-access.js";
import { memoAccessInfo } from "./memo-access-info.js";
import { dropPendingLinks } from "./memo-attachment-links.js";
import { createMemo, type CreateMemoParams } from "./memo-create.js";
import { touchMemo } from "./memo-touch.js";
import { deleteMemo, deleteUserData, purgeExpiredMemos } from "./memo-delete.js";
import { relayChanges, relayPendingChanges } from "./memo-outbox.js";
import { contentLimitOf } from "./memo-fields.js";
import { memoResponses } from "./memo-responses.js";
import { detachSpace, spaceMemoCount } from "./memo-space-changes.js";
import { NO_SPACES, type SpaceRoles } from "./memo-spaces.js";
import { updateMemo, type UpdateMemoParams } from "./memo-update.js";
import type { ChangeReaders, ChangeToCheck, MemoAccessInfo } from "./memos.contract.js";
import type { MemosDeps, MemosPeers } from "./memos-deps.js";
import { ensureMemosIndexes, memosStore } from "./memos-store.js";
import { ensureMemoCount, readMemoCount, type MemoCount } from "./memo-count.js";
import { notifyPendingMemos } from "./notifications/notify-memo.js";
import { deleteUserNotification, listUserNotifications, updateUserNotification, type NotificationDeps, type UpdateUserNotificationParams } from "./notifications/user-notifications.js";
import { deleteMemoReaction, listMemoReactions, parseReactionType, upsertMemoReaction } from "./reactions.js";
import { listMemoRelations, setMemoRelations } from "./relations.js";
import { createMemoShare, deleteMemoShare, listMemoShares, liveSharedMemo, toShareJson } from "./shares.js";
import { createShortcut, deleteShortcut, getShortcut, listShortcuts, updateShortcut, type CreateShortcutParams, type ShortcutDeps, type UpdateShortcutParams } from "./shortcuts.js";
import { getUserStats, listAllUserStats, type UserStatsDeps } from "./user-stats.js";
import { indexesMixin } from "../../shared/runtime/indexes-mixin.js";

/**
 * How long a user's memberships serve requests without asking again (the staleness a lost
 * event can cost); the spaces service's events drop them sooner, so one look-up serves the
 * calls of a request without a removed member keeping access.
 */
const MEMBERSHIP_TTL_MS = 1000;
const MEMBERSHIP_CACHE_USERS = 10_000;
/**
 * How long a user's `users/{name}` serves responses without asking the auth service again
 * (every page of memos names their creators): its userChanged event drops it sooner, so the
 * bound is what a lost event, or a look-up that overlapped the change, can cost.
 */
const USER_NAME_TTL_MS = 1000;
const USER_NAME_CACHE_USERS = 10_000;

interface MemosSettings extends ServiceSettingSchema {
	/** How often soft-deleted memos past their retention are looked for. */
	purgeIntervalMs: number;
	/** How often memos whose notifications may be missing are looked for (notify-memo.ts). */
	notifyRepairIntervalMs: number;
	/** How often memo changes left in the outbox (a crash, auth unavailable) are relayed to the webhooks (memo-outbox.ts). */
	outboxRelayIntervalMs: number;
}

interface MemosMethods extends InstanceSettingsMethods {
	/** The rules' dependencies, with the other services called on behalf of `caller` (a request, or the broker). */
	deps(caller: Context | ServiceBroker): MemosDeps;
	/** Epoch ms; a method so tests can replace the clock the purge runs on. */
	clockNow(): number;
	/** Logs `message` as a warning the first time `key` comes, never again in this process. */
	warnOnce(key: string, message: string): void;
	purgeExpiredMemos(now: number): Promise<number>;
	/** The outbox's relay pass (memo-outbox.ts), one at a time; tests run it directly. */
	relayOutbox(): Promise<void>;
	/** The notifications' repair pass (notify-memo.ts); returns how many memos it handled. */
	notifyPendingMemos(now: number): Promise<number>;
}

interface MemosVars {
	/** The caller's spaces and roles per user id, dropped by the spaces service's membership events. */
	membershipCache: BoundedCache<string, Promise<SpaceRoles>>;
	/** `users/{name}` per user id (null: no such user), dropped by the auth service's userChanged events. */
	userNameCache: BoundedCache<string, string | null>;
	linkCache: LinkMetadataCache;
	/** Null when MEMO_LIST_CACHE_MB is 0 or the store tells no change token (MongoDB). */
	listCache: ListMemosCache | null;
	/** Whether every LIST_PEER_SERVICES service is in this process: read at start and at each `$services.changed`. */
	listPeersLocal: boolean;
	/** The keys of the warnings `warnOnce` has logged. */
	warned: Set<string>;
	purgeTimer?: NodeJS.Timeout;
	notifyTimer?: NodeJS.Timeout;
	relayTimer?: NodeJS.Timeout;
	/** The relay pass under way, so that passes never overlap and stop waits for it. */
	relaying?: Promise<void>;
	/** The start-up repair pass, awaited on stop so that it never outlives the store. */
	startRepair?: Promise<void>;
	stopping?: boolean;
}

type MemosThis = Service & MemosVars & MemosMethods;

/**
 * The services whose answers a ListMemos response holds beside the memos: with each of them in
 * this process, they read the store this one does (and their replicas elsewhere share it, issue
 * 16.7), so its change token covers their data too.
 */
const LIST_PEER_SERVICES = [authActions.lookupUsers.service, spacesActions.membershipsOf.service, attachmentsActions.forMemos.service];

function listPeersLocal(broker: ServiceBroker): boolean {
	return LIST_PEER_SERVICES.every(name => broker.getLocalService(name) !== undefined);
}

/** `peersLocal` tells whether the peers are in this process now: the responses are kept only while they are. */
function listMemosCache(broker: ServiceBroker, documents: DocumentStore, peersLocal: () => boolean): ListMemosCache | null {
	const maxBytes = resourcesOf(broker).config.memoListCacheBytes;
	const changeToken = documents.changeToken?.bind(documents);
	if (maxBytes === 0 || changeToken === undefined) return null;
	return new ListMemosCache({
		maxBytes,
		changeToken: () => (peersLocal() ? changeToken() : null),
		count: result => countListCacheLookup(broker, result)
	});
}
type Ctx<P> = Context<P, RequestMeta>;

const requestTime = (ctx: Ctx<unknown>) => ctx.meta.requestTime ?? Date.now();

/** A list's page token: absent, or a string. */
function pageTokenParam(value: unknown): string | undefined {
	if (value !== undefined && typeof value !== "string") throw invalidArgument("pageToken must be a string");
	return value;
}

/** A text query parameter given once: absent reads as empty. */
function text(value: unknown, name: string): string {
	if (value === undefined) return "";
	if (typeof value !== "string") throw invalidArgument(`${name} must be given once, as a string`);
	return value;
}

/** What the user stats count with, for the caller of `ctx`. */
async function userStatsDeps(deps: MemosDeps, ctx: Ctx<unknown>): Promise<UserStatsDeps> {
	const caller = ctx.meta.user ?? null;
	return {
		memos: deps.store.memos,
		caller,
		spaceIds: [...(await deps.peers.spacesOf(caller)).keys()],
		lookupUsers: query => call(ctx, authActions.lookupUsers, query)
	};
}

/** What the notification operations read with, for the caller of `ctx` (who sees the senders' User messages). */
function notificationDeps(deps: MemosDeps, ctx: Ctx<unknown>): NotificationDeps {
	return {
		notifications: deps.store.notifications,
		memos: deps.store.memos,
		userIds: usernames => deps.peers.userIds(usernames),
		async senders(ids) {
			if (ids.length === 0) return new Map();
			try {
				const users = await call(ctx, authActions.userMessages, { ids });
				return new Map(Object.entries(users).map(([id, user]) => [id, { name: String(user.name), user }]));
			} catch (err) {
				if (!isActionNotYetOffered(ctx.broker, authActions.userMessages, err)) throw err;
				deps.warnOnce(authActions.userMessages.name, `the running auth nodes do not offer ${authActions.userMessages.name} yet (a rolling deploy?): notifications are listed without senderUser until they do`);
				return new Map([...(await deps.peers.userNames(ids))].map(([id, name]) => [id, { name }]));
			}
		},
		spacesOf: caller => deps.peers.spacesOf(caller)
	};
}

function shortcutDeps(deps: MemosDeps, ctx: Ctx<unknown>): ShortcutDeps {
	return { shortcuts: deps.store.shortcuts, userIds: usernames => deps.peers.userIds(usernames), now: () => requestTime(ctx) };
}

/** MemoService (contract 7): memos, comments, relations, reactions, share links, link metadata. */
const MemosService: ServiceSchema<MemosSettings, MemosMethods, MemosVars> = {
	name: "memos",
	// Mixins are typed with their own `this`; `mixins` takes untyped schemas.
	mixins: [InstanceSettingsMixin as Partial<ServiceSchema>, indexesMixin(documents => ensureMemosIndexes(memosStore(documents)))],

	settings: {
		purgeIntervalMs: 60 * 60 * 1000,
		notifyRepairIntervalMs: 60 * 1000,
		outboxRelayIntervalMs: 5000
	},

	actions: {
		/** GetUserStats (contract 16): `users/{user}:getStats`, over that user's memos the caller can read. */
		getUserStats: {
			async handler(ctx: Ctx<{ user?: unknown }>) {
				return getUserStats(await userStatsDeps(this.deps(ctx), ctx), ctx.params.user);
			}
		},

		/** ListAllUserStats (contract 16): `users:stats`, per user with memos the caller can read. */
		listAllUserStats: {
			async handler(ctx: Ctx<{ state?: unknown; filter?: unknown }>) {
				return listAllUserStats(await userStatsDeps(this.deps(ctx), ctx), ctx.params);
			}
		},

		/** ListShortcuts (contract 16): `users/{user}/shortcuts`, the user themself only. */
		listShortcuts: {
			handler(ctx: Ctx<{ user?: unknown; pageSize?: unknown; pageToken?: unknown }>) {
				return listShortcuts(shortcutDeps(this.deps(ctx), ctx), ctx.params, signedIn(ctx));
			}
		},

		getShortcut: {
			handler(ctx: Ctx<{ user?: unknown; shortcut?: unknown }>) {
				return getShortcut(shortcutDeps(this.deps(ctx), ctx), ctx.params, signedIn(ctx));
			}
		},

		/** CreateShortcut; its filter is checked with the memo filter grammar (contract 6.1, 6.2). */
		createShortcut: {
			handler(ctx: Ctx<CreateShortcutParams & Record<string, unknown>>) {
				return createShortcut(shortcutDeps(this.deps(ctx), ctx), ctx.params, queryBoolOf(ctx.params, "validateOnly"), signedIn(ctx));
			}
		},

		updateShortcut: {
			handler(ctx: Ctx<UpdateShortcutParams>) {
				return updateShortcut(shortcutDeps(this.deps(ctx), ctx), ctx.params, signedIn(ctx));
			}
		},

		deleteShortcut: {
			async handler(ctx: Ctx<{ user?: unknown; shortcut?: unknown }>): Promise<void> {
				await deleteShortcut(shortcutDeps(this.deps(ctx), ctx), ctx.params, signedIn(ctx));
			}
		},

		/** ListUserNotifications (contract 17): `users/{user}/notifications`, the recipient only. */
		listUserNotifications: {
			handler(ctx: Ctx<{ user?: unknown; pageSize?: unknown; pageToken?: unknown; filter?: unknown }>) {
				return listUserNotifications(notificationDeps(this.deps(ctx), ctx), ctx.params, signedIn(ctx));
			}
		},

		/** UpdateUserNotification (contract 17): its `status`. */
		updateUserNotification: {
			handler(ctx: Ctx<UpdateUserNotificationParams>) {
				return updateUserNotification(notificationDeps(this.deps(ctx), ctx), ctx.params, signedIn(ctx));
			}
		},

		deleteUserNotification: {
			async handler(ctx: Ctx<{ user?: unknown; notification?: unknown }>): Promise<void> {
				await deleteUserNotification(notificationDeps(this.deps(ctx), ctx), ctx.params, signedIn(ctx));
			}
		},

		/** GET /api/v1/memos (contract 7.2). */
		listMemos: {
			async handler(ctx: Ctx<Record<string, unknown>>) {
				const caller = ctx.meta.user ?? null;
				const deps = this.deps(ctx);
				const now = requestTime(ctx);
				const compute = async (peers: MemosPeers) => {
					const query = parseListMemosQuery(ctx.params);
					const filter = parseMemoFilter(query.filter);
					return { response: await listMemosResponse({ ...deps, peers }, caller, query, filter, now), cacheable: !filter.readsNow };
				};
				if (this.listCache === null) return (await compute(deps.peers)).response;
				return this.listCache.response({ caller, params: ctx.params }, deps.peers, compute);
			}
		},

		/** POST /api/v1/memos (contract 7.3). */
		createMemo: {
			async handler(ctx: Ctx<CreateMemoParams>) {
				const caller = signedIn(ctx);
				const deps = this.deps(ctx);
				const { memo, attachments, related } = await createMemo(deps, caller, ctx.params, null, requestTime(ctx));
				// A new memo has only the attachments it was created with: no `attachments.forMemos` call.
				const [json] = await memoResponses(deps, caller, [memo], { attachments: { [memo._id]: attachments }, asCreated: !related });
				await deps.relayNow([memo], [json!]);
				return json;
			}
		},

		/** GET /api/v1/memos/{memo} (contract 7.4): the read rule of 1.10. */
		getMemo: {
			async handler(ctx: Ctx<{ memo?: unknown }>) {
				const caller = ctx.meta.user ?? null;
				const id = pathId(ctx.params.memo);
				const deps = this.deps(ctx);
				const memo = await deps.store.memos.findOne({ _id: id });
				assertReadable(memo, id, caller, await deps.peers.spacesOf(caller));
				const [json] = await memoResponses(deps, caller, [memo]);
				return json;
			}
		},

		/** PATCH /api/v1/memos/{memo} (contract 7.5). */
		updateMemo: {
			async handler(ctx: Ctx<UpdateMemoParams & { memo?: unknown }>) {
				const caller = signedIn(ctx);
				const deps = this.deps(ctx);
				const updated = await updateMemo(deps, caller, pathId(ctx.params.memo), ctx.params, requestTime(ctx));
				const [json] = await memoResponses(deps, caller, [updated]);
				await deps.relayNow([updated], [json!]);
				return json;
			}
		},

		/** DELETE /api/v1/memos/{memo} (contract 7.6): soft delete, or purge with `force`. */
		deleteMemo: {
			async handler(ctx: Ctx<{ memo?: unknown; force?: unknown }>): Promise<void> {
				const caller = signedIn(ctx);
				const id = pathId(ctx.params.memo);
				await deleteMemo(this.deps(ctx), caller, id, queryBoolOf(ctx.params, "force"), requestTime(ctx));
			}
		},

		/** POST /api/v1/memos/{memo}/comments (contract 7.7). */
		createMemoComment: {
			async handler(ctx: Ctx<{ memo?: unknown; commentId?: unknown; comment?: unknown }>) {
				const caller = ctx.meta.user;
				if (!caller) throw unauthenticated();
				const deps = this.deps(ctx);
				const params = { memoId: ctx.params.commentId, memo: ctx.params.comment };
				const created = await createMemoComment(deps, caller, pathId(ctx.params.memo), params, requestTime(ctx));
				if (created === null) return undefined;
				const attachments = created.attachments === undefined ? undefined : { [created.memo._id]: created.attachments };
				const [json] = await memoResponses(deps, caller, [created.memo], { attachments });
				await deps.relayNow([created.memo], [json!]);
				return json;
			}
		},

		/** GET /api/v1/memos/{memo}/comments (contract 7.7). */
		listMemoComments: {
			async handler(ctx: Ctx<{ memo?: unknown; pageSize?: unknown; pageToken?: unknown; orderBy?: unknown }>) {
				const caller = ctx.meta.user ?? null;
				const parentId = pathId(ctx.params.memo);
				const request = { pageSize: pageSizeParam(ctx.params.pageSize), pageToken: text(ctx.params.pageToken, "pageToken"), orderBy: text(ctx.params.orderBy, "orderBy") };
				const deps = this.deps(ctx);
				const page = await listMemoComments(deps, caller, parentId, request);
				return { memos: await memoResponses(deps, caller, page.items), nextPageToken: page.nextPageToken };
			}
		},

		/** PATCH /api/v1/memos/{memo}/relations (contract 7.8). */
		setMemoRelations: {
			async handler(ctx: Ctx<{ memo?: unknown; relations?: unknown }>): Promise<void> {
				const caller = ctx.meta.user;
				if (!caller) throw unauthenticated();
				const deps = this.deps(ctx);
				const id = pathId(ctx.params.memo);
				await setMemoRelations(deps, caller, id, ctx.params.relations, requestTime(ctx));
				await touchMemo(deps, caller, id, requestTime(ctx));
			}
		},

		/** GET /api/v1/memos/{memo}/relations (contract 7.8). */
		listMemoRelations: {
			async handler(ctx: Ctx<{ memo?: unknown; pageSize?: unknown; pageToken?: unknown }>) {
				const id = pathId(ctx.params.memo);
				const request = { pageSize: pageSizeParam(ctx.params.pageSize), pageToken: pageTokenParam(ctx.params.pageToken) };
				return listMemoRelations(this.deps(ctx), ctx.meta.user ?? null, id, request);
			}
		},

		/** POST /api/v1/memos/{memo}/reactions (contract 7.10). */
		upsertMemoReaction: {
			async handler(ctx: Ctx<{ memo?: unknown; reaction?: unknown }>) {
				const caller = ctx.meta.user;
				if (!caller) throw unauthenticated();
				const id = pathId(ctx.params.memo);
				const reactionType = parseReactionType(ctx.params.reaction);
				return upsertMemoReaction(this.deps(ctx), caller, id, reactionType, requestTime(ctx));
			}
		},

		/** GET /api/v1/memos/{memo}/reactions (contract 7.10). */
		listMemoReactions: {
			async handler(ctx: Ctx<{ memo?: unknown; pageSize?: unknown; pageToken?: unknown }>) {
				const id = pathId(ctx.params.memo);
				const request = { pageSize: pageSizeParam(ctx.params.pageSize), pageToken: pageTokenParam(ctx.params.pageToken) };
				return listMemoReactions(this.deps(ctx), ctx.meta.user ?? null, id, request);
			}
		},

		/** DELETE /api/v1/memos/{memo}/reactions/{reaction} (contract 7.10). */
		deleteMemoReaction: {
			async handler(ctx: Ctx<{ memo?: unknown; reaction?: unknown }>): Promise<void> {
				const caller = ctx.meta.user;
				if (!caller) throw unauthenticated();
				await deleteMemoReaction(this.deps(ctx), caller, pathId(ctx.params.memo), pathId(ctx.params.reaction), requestTime(ctx));
			}
		},

		/** POST /api/v1/memos/{memo}/shares (contract 7.11). */
		createMemoShare: {
			async handler(ctx: Ctx<{ memo?: unknown; memoShare?: unknown }>) {
				const share = await createMemoShare(this.deps(ctx), ctx.meta.user ?? null, pathId(ctx.params.memo), ctx.params.memoShare, requestTime(ctx));
				return toShareJson(share);
			}
		},

		/** GET /api/v1/memos/{memo}/shares (contract 7.11). */
		listMemoShares: {
			async handler(ctx: Ctx<{ memo?: unknown }>) {
				const shares = await listMemoShares(this.deps(ctx), ctx.meta.user ?? null, pathId(ctx.params.memo));
				return { memoShares: shares.map(toShareJson) };
			}
		},

		/** DELETE /api/v1/memos/{memo}/shares/{share} (contract 7.11). */
		deleteMemoShare: {
			async handler(ctx: Ctx<{ memo?: unknown; share?: unknown }>): Promise<void> {
				await deleteMemoShare(this.deps(ctx), ctx.meta.user ?? null, pathId(ctx.params.memo), pathId(ctx.params.share));
			}
		},

		/** GET /api/v1/shares/{shareToken}/memo (contract 7.11): no authentication; `parent` omitted and `relations` empty. */
		getSharedMemo: {
			async handler(ctx: Ctx<{ shareToken?: unknown }>) {
				const deps = this.deps(ctx);
				const memo = await liveSharedMemo(deps.store, ctx.params.shareToken, requestTime(ctx));
				if (memo === null) throw notFound("share link not found");
				const [json] = await memoResponses(deps, ctx.meta.user ?? null, [memo], { shared: true });
				return json;
			}
		},

		/** GET /api/v1/memos/-/linkMetadata (contract 7.12). */
		getLinkMetadata: {
			async handler(ctx: Ctx<{ url?: unknown }>) {
				const url = parseLinkUrl(ctx.params.url ?? "", "url");
				return { url: ctx.params.url, ...(await linkMetadata(this.deps(ctx).links, url)) };
			}
		},

		/** POST /api/v1/memos/-/linkMetadata:batchGet (contract 7.12): answers in input order; one failure fails the call. */
		batchGetLinkMetadata: {
			async handler(ctx: Ctx<{ urls?: unknown }>) {
				const urls = parseLinkUrls(ctx.params.urls);
				const links = this.deps(ctx).links;
				const results = await Promise.all(urls.map(url => linkMetadata(links, url)));
				return { linkMetadata: results.map((metadata, i) => ({ url: (ctx.params.urls as string[])[i], ...metadata })) };
			}
		},

		/** For the attachments service's file route (contract 8.5): the memo id a live share token grants, or null. */
		resolveShare: {
			visibility: "public",
			async handler(ctx: Ctx<{ token?: unknown }>): Promise<{ memoId: string } | null> {
				const memo = await liveSharedMemo(this.deps(ctx).store, ctx.params.token, requestTime(ctx));
				return memo === null ? null : { memoId: memo._id };
			}
		},

		/** For the attachments service: creators, spaces and the caller's read right of memos (memo-access-info.ts). */
		accessInfo: {
			visibility: "public",
			handler(ctx: Ctx<{ memoIds?: string[] }>): Promise<MemoAccessInfo[]> {
				return memoAccessInfo(this.deps(ctx), ctx.params.memoIds ?? [], ctx.meta.user ?? null);
			}
		},

		/** For the gateway's live stream (contract 17): who may read what each change names (change-readers.ts). */
		changeReaders: {
			visibility: "public",
			handler(ctx: Ctx<{ changes?: ChangeToCheck[]; userIds?: string[] }>): Promise<ChangeReaders[]> {
				return changeReaders(this.deps(ctx), ctx.params.changes ?? [], ctx.params.userIds ?? []);
			}
		},

		/** For the attachments service: SetMemoAttachments sets the memo's updateTime (contract 7.9). */
		touch: {
			visibility: "public",
			async handler(ctx: Ctx<{ memoId: string; time: number }>): Promise<void> {
				const deps = this.deps(ctx);
				// Called after SetMemoAttachments replaced the memo's set (memo-attachment-links.ts).
				await touchMemo(deps, signedIn(ctx), ctx.params.memoId, ctx.params.time);
				await dropPendingLinks(deps, ctx.params.memoId);
			}
		},

		/**
		 * The memos counter of InstanceStats (contract 4.11), for the instance service: memos that exist for their
		 * users (NORMAL and ARCHIVED, comments included); soft-deleted ones are hidden everywhere else, so not
		 * counted. Read from the counter this service keeps (memo-count.ts).
		 */
		stats: {
			visibility: "public",
			handler(ctx: Ctx<unknown>): Promise<MemoCount> {
				return readMemoCount(this.deps(ctx).store.totals);
			}
		},

		/** For the spaces service: memos (not deleted) still placed in a space (DeleteSpace without force, contract 9). */
		spaceMemoCount: {
			visibility: "public",
			handler(ctx: Ctx<{ spaceId?: string }>): Promise<number> {
				return spaceMemoCount(this.deps(ctx).store, ctx.params.spaceId ?? "");
			}
		},

		/** For the spaces service: every memo of a deleted space loses it, SPACE memos become PRIVATE (contract 9), each change reported (contract 17). */
		detachSpace: {
			visibility: "public",
			async handler(ctx: Ctx<{ spaceId?: string }>): Promise<void> {
				const spaceId = ctx.params.spaceId;
				if (typeof spaceId !== "string" || spaceId === "") return;
				await detachSpace(this.deps(ctx), spaceId, ctx.meta.user ?? null, requestTime(ctx));
			}
		},

		/**
		 * For DeleteUser (contract 2.4): the user's reactions and share links, and their memos purged
		 * as with `force` (others' comments on them survive as ordinary memos), each deletion reported
		 * (contract 17). Idempotent.
		 */
		deleteUserData: {
			visibility: "public",
			async handler(ctx: Ctx<{ userId?: string }>): Promise<void> {
				const userId = ctx.params.userId;
				if (typeof userId !== "string" || userId === "") return;
				await deleteUserData(this.deps(ctx), userId, ctx.meta.user ?? null, requestTime(ctx));
			}
		}
	},

	events: {
		...onEvent<{ localService: boolean }, MemosThis>(servicesChanged, function () {
			this.listPeersLocal = listPeersLocal(this.broker);
		}),
		...invalidateOn<MemosThis, string, SpaceMemberEvent>(
			spacesEvents.memberChanged.name,
			service => service.membershipCache,
			params => (Array.isArray(params.userIds) ? params.userIds : undefined)
		),
		...invalidateOn<MemosThis, string, { id: string }>(
			authEvents.userChanged.name,
			service => service.userNameCache,
			params => (typeof params.id === "string" ? [params.id] : undefined)
		)
	},

	methods: {
		deps(caller: Context | ServiceBroker): MemosDeps {
			const membershipCache = this.membershipCache;
			const userNameCache = this.userNameCache;
			const deps: MemosDeps = {
				store: memosStore(documentsOf(this.broker)),
				peers: {
					spacesOf(user) {
						if (!user) return Promise.resolve(NO_SPACES);
						return membershipCache.getOrLoad(user.id, async () => {
							const memberships = await call(caller, spacesActions.membershipsOf, { userId: user.id });
							return new Map(memberships.map(m => [m.spaceId, m.role]));
						});
					},
					spaceMembers: (spaceId, userIds) => call(caller, spacesActions.spaceMembers, { spaceId, userIds }),
					membersOfSpaces: async (spaceIds, userIds) => {
						try {
							return await call(caller, spacesActions.membersOfSpaces, { spaceIds, userIds });
						} catch (err) {
							if (!isActionNotYetOffered(this.broker, spacesActions.membersOfSpaces, err)) throw err;
							this.warnOnce(spacesActions.membersOfSpaces.name, `the running spaces nodes do not offer ${spacesActions.membersOfSpaces.name} yet (a rolling deploy?): live-stream changes of SPACE memos reach only their creators until they do`);
							return null;
						}
					},
					async userNames(userIds) {
						const names = new Map<string, string>();
						const missing: string[] = [];
						for (const id of new Set(userIds)) {
							const name = userNameCache.get(id);
							if (name === undefined) missing.push(id);
							else if (name !== null) names.set(id, name);
						}
						if (missing.length === 0) return names;
						const found = new Map((await call(caller, authActions.lookupUsers, { ids: missing })).map(user => [user.id, formatName("user", user.username)]));
						for (const id of missing) {
							const name = found.get(id) ?? null;
							userNameCache.set(id, name);
							if (name !== null) names.set(id, name);
						}
						return names;
					},
					defaultVisibility: userId => call(caller, authActions.defaultMemoVisibility, { userId }),
					async userIds(usernames) {
						const users = await call(caller, authActions.lookupUsers, { usernames });
						return new Map(users.map(user => [user.username, user.id]));
					},
					users: usernames => call(caller, authActions.lookupUsers, { usernames }),
					linkAttachments: (memo, attachments, apply) => call(caller, attachmentsActions.linkForMemo, { memo, attachments, apply }),
					attachmentsOf: async memoIds => (memoIds.length === 0 ? {} : call(caller, attachmentsActions.forMemos, { memoIds })),
					deleteAttachments: memoIds => call(caller, attachmentsActions.deleteForMemos, { memoIds }),
					hideAttachments: memoIds => call(caller, attachmentsActions.setMemosDeleted, { memoIds, deleted: true }),
					attachmentsFollow: (memoId, spaceId, spaceReadable) => call(caller, attachmentsActions.followMemo, { memoId, spaceId, spaceReadable }),
					attachmentsLeaveSpace: spaceId => call(caller, attachmentsActions.leaveSpace, { spaceId }),
					async recordMemoChanges(changes) {
						await call(caller, authActions.recordMemoChanges, { changes });
					}
				},
				contentLengthLimit: async () => contentLimitOf(await this.instanceSetting("MEMO_RELATED")),
				countCreated: kind => countMemoCreated(this.broker, kind),
				// The broker's, not the request's: handlers run without the caller's meta, as no one's request.
				announce: (event, payload) =>
					broadcast(this.broker, event, payload).catch((err: unknown) => this.logger.error(errorLog(err), `broadcasting ${event.name} failed`)),
				links: { cache: this.linkCache, allowPrivateNetworks: resourcesOf(this.broker).config.linkMetadataAllowPrivateNetworks },
				leftForRepair: (err, what) => this.logger.warn(errorLog(err), `${what} failed; the repair pass will complete them`),
				warnOnce: (key, message) => this.warnOnce(key, message),
				relayNow: (docs, memos) => relayChanges(deps, docs, memos).catch((err: unknown) => deps.leftForRepair(err, "recording memo changes for webhooks"))
			};
			return deps;
		},

		clockNow(): number {
			return Date.now();
		},

		warnOnce(key: string, message: string): void {
			if (this.warned.has(key)) return;
			this.warned.add(key);
			this.logger.warn(message);
		},

		purgeExpiredMemos(now: number): Promise<number> {
			return purgeExpiredMemos(this.deps(this.broker), now);
		},

		relayOutbox(): Promise<void> {
			this.relaying ??= relayPendingChanges(this.deps(this.broker))
				.then(
					() => undefined,
					(err: unknown) => this.logger.warn(errorLog(err), "relaying memo changes to the webhooks failed; retrying at the next pass")
				)
				.finally(() => (this.relaying = undefined));
			return this.relaying;
		},

		notifyPendingMemos(now: number): Promise<number> {
			return notifyPendingMemos(this.deps(this.broker), now);
		}
	},

	created() {
		this.membershipCache = new BoundedCache({ ttlMs: MEMBERSHIP_TTL_MS, maxEntries: MEMBERSHIP_CACHE_USERS });
		this.userNameCache = new BoundedCache({ ttlMs: USER_NAME_TTL_MS, maxEntries: USER_NAME_CACHE_USERS });
		this.linkCache = linkMetadataCache();
		this.listCache = null;
		this.listPeersLocal = false;
		this.warned = new Set();
	},

	async started() {
		const documents = documentsOf(this.broker);
		await ensureMemoCount(memosStore(documents).totals);
		this.listPeersLocal = listPeersLocal(this.broker);
		this.listCache = listMemosCache(this.broker, documents, () => this.listPeersLocal);
		// The repair pass (memo-cleanup.ts) needs the attachments service, which may start after
		// this one: it runs once that is there, without holding up this service's start or stop.
		const failed = (err: unknown) => this.logger.error(errorLog(err), "purging deleted memos and completing half-done deletions at start failed");
		void this.broker.waitForServices([attachmentsActions.setMemosDeleted.service], this.settings.purgeIntervalMs).then(() => {
			if (!this.stopping) this.startRepair = this.purgeExpiredMemos(this.clockNow()).then(() => undefined, failed);
		}, failed);
		this.purgeTimer = setInterval(() => {
			this.purgeExpiredMemos(this.clockNow()).catch((err: unknown) => this.logger.warn(errorLog(err), "purging deleted memos failed"));
		}, this.settings.purgeIntervalMs);
		this.purgeTimer.unref();
		// Every replica runs it: a second run over the same memo adds nothing (notify-memo.ts).
		this.notifyTimer = setInterval(() => {
			this.notifyPendingMemos(this.clockNow()).catch((err: unknown) => this.logger.warn(errorLog(err), "completing pending notifications failed"));
		}, this.settings.notifyRepairIntervalMs);
		this.notifyTimer.unref();
		this.relayTimer = setInterval(() => void this.relayOutbox(), this.settings.outboxRelayIntervalMs);
		this.relayTimer.unref();
	},

	async stopped() {
		this.stopping = true;
		clearInterval(this.purgeTimer);
		clearInterval(this.notifyTimer);
		clearInterval(this.relayTimer);
		await Promise.all([this.startRepair, this.relaying]);
	}
};

export default MemosService;
