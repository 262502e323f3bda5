import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { RequestMeta } from "../../shared/caller.js";
import { BoundedCache } from "../../shared/cache/bounded-cache.js";
import { invalidateOn } from "../../shared/cache/invalidate-on.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import type { Collection } from "../../shared/store/document-store.js";
import { call } from "../../shared/contract.js";
import { attachmentsActions } from "../attachments/attachments.contract.js";
import { spacesActions, spacesEvents, type SpaceMemberEvent } from "../spaces/spaces.contract.js";
import { MEMOS, type MemoDoc } from "./memo-doc.js";
import { assertCanMove, NO_SPACES, readableInSpace, type SpaceRoles } from "./memo-spaces.js";

/**
 * How long a user's memberships serve requests without asking again (the staleness a lost
 * event can cost); the spaces service's events drop them sooner, so one look-up serves the
 * calls of a request without a removed member keeping access.
 */
const MEMBERSHIP_TTL_MS = 1000;
const MEMBERSHIP_CACHE_USERS = 10_000;

export interface MemoSpacesMethods {
	/** The caller's spaces and roles: one `spaces.membershipsOf` call, cached briefly per user. */
	callerSpaces(ctx: Context<unknown, RequestMeta>): Promise<SpaceRoles>;
	/** The checks of moving `memo` to `spaceId` (contract 7.5); nothing to check for no space or its own. */
	checkSpaceMove(ctx: Context<unknown, RequestMeta>, memo: MemoDoc, spaceId: string | null | undefined): Promise<void>;
	/** Tells the attachments service when a memo's space or its readability in the space changed (8.1, 7.5). */
	attachmentsFollow(ctx: Context, before: MemoDoc, after: MemoDoc): Promise<void>;
}

interface MixinVars {
	membershipCache: BoundedCache<string, Promise<SpaceRoles>>;
}

type MixinThis = Service & MemoSpacesMethods & MixinVars;

function memos(service: Service): Collection<MemoDoc> {
	return documentsOf(service.broker).collection<MemoDoc>(MEMOS);
}

/**
 * SPACE visibility in the memos service: the caller's memberships, moving memos between
 * spaces, and the actions the spaces service calls when a space is deleted.
 */
export const MemoSpacesMixin: Partial<ServiceSchema<ServiceSettingSchema, MemoSpacesMethods, MixinVars>> = {
	actions: {
		/** For the spaces service: memos (not deleted) still placed in a space (DeleteSpace without force, contract 9). */
		spaceMemoCount: {
			visibility: "public",
			handler(this: MixinThis, ctx: Context<{ spaceId?: string }>): Promise<number> {
				return memos(this).count({ spaceId: ctx.params.spaceId ?? "", deleteTime: null });
			}
		},

		/** For the spaces service: every memo of a deleted space loses it, SPACE memos become PRIVATE (contract 9). */
		detachSpace: {
			visibility: "public",
			async handler(this: MixinThis, ctx: Context<{ spaceId?: string }>): Promise<void> {
				const spaceId = ctx.params.spaceId;
				if (typeof spaceId !== "string" || spaceId === "") return;
				await memos(this).update({ spaceId, visibility: "SPACE" }, { $set: { spaceId: null, visibility: "PRIVATE" } }, { multi: true });
				await memos(this).update({ spaceId }, { $set: { spaceId: null } }, { multi: true });
				await call(ctx, attachmentsActions.leaveSpace, { spaceId });
			}
		}
	},

	events: invalidateOn<MixinThis, string, SpaceMemberEvent>(
		spacesEvents.memberChanged.name,
		service => service.membershipCache,
		params => (Array.isArray(params.userIds) ? params.userIds : undefined)
	),

	methods: {
		callerSpaces(this: MixinThis, ctx: Context<unknown, RequestMeta>): Promise<SpaceRoles> {
			const caller = ctx.meta.user;
			if (!caller) return Promise.resolve(NO_SPACES);
			return this.membershipCache.getOrLoad(caller.id, async () => {
				const memberships = await call(ctx, spacesActions.membershipsOf, { userId: caller.id });
				return new Map(memberships.map(m => [m.spaceId, m.role]));
			});
		},

		async checkSpaceMove(this: MixinThis, ctx: Context<unknown, RequestMeta>, memo: MemoDoc, spaceId: string | null | undefined): Promise<void> {
			const caller = ctx.meta.user;
			if (!caller || spaceId === undefined || spaceId === null || spaceId === memo.spaceId) return;
			const spaces = await this.callerSpaces(ctx);
			const creatorIsCaller = memo.creatorId === caller.id;
			if (creatorIsCaller && spaces.has(spaceId)) return;
			const destination = await call(ctx, spacesActions.spaceMembers, { spaceId, userIds: [memo.creatorId] });
			assertCanMove(caller, spaces, spaceId, { exists: destination.exists, creatorIsMember: Object.hasOwn(destination.roles, memo.creatorId) });
		},

		async attachmentsFollow(this: MixinThis, ctx: Context, before: MemoDoc, after: MemoDoc): Promise<void> {
			const readable = readableInSpace(after);
			if (before.spaceId === after.spaceId && readableInSpace(before) === readable) return;
			await call(ctx, attachmentsActions.followMemo, { memoId: after._id, spaceId: after.spaceId, spaceReadable: readable });
		}
	},

	created(this: MixinThis) {
		this.membershipCache = new BoundedCache({ ttlMs: MEMBERSHIP_TTL_MS, maxEntries: MEMBERSHIP_CACHE_USERS });
	}
};
