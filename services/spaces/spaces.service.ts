import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { signedIn, type RequestMeta } from "../../shared/caller.js";
import { broadcast, call } from "../../shared/contract.js";
import { errorLog } from "../../shared/runtime/log-error.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import { authActions } from "../auth/auth.contract.js";
import { memosActions } from "../memos/memos.contract.js";
import { recountPendingSpaces } from "./count-repair.js";
import { leaveAllSpaces } from "./leave-all-spaces.js";
import { listSpaceMembers, listSpaces, type PageParams } from "./list-spaces.js";
import { membershipsOf, membersOfSpaces, spaceMembers } from "./membership-lookups.js";
import { createSpace, deleteSpace, getSpace, updateSpace } from "./space-changes.js";
import { toMemberJson, toSpaceJson } from "./space-json.js";
import { addSpaceMember, removeSpaceMember, updateSpaceMember } from "./space-members.js";
import type { MemberView, SpaceView } from "./space-view.js";
import type { Membership } from "./spaces.contract.js";
import type { SpacesDeps } from "./spaces-deps.js";
import { ensureSpaceIndexes, spaceCount, spacesStore } from "./spaces-store.js";
import { indexesMixin } from "../../shared/runtime/indexes-mixin.js";

interface SpacesSettings extends ServiceSettingSchema {
	/** How often spaces with membership changes left pending are looked for (count-repair.ts). */
	repairIntervalMs: number;
}

interface SpacesMethods {
	/** The rules' dependencies, with the other services called on behalf of the request. */
	deps(ctx: Context): SpacesDeps;
	/** The repair pass of the membership counters as of `now`; returns how many spaces it recounted. */
	repairCounters(now: number): Promise<number>;
}

type SpacesThis = Service<SpacesSettings> & SpacesMethods & { repairTimer?: NodeJS.Timeout };

type Ctx<P> = Context<P, RequestMeta>;

const requestTime = (ctx: Ctx<unknown>) => ctx.meta.requestTime ?? Date.now();
const spaceJson = (view: SpaceView) => toSpaceJson(view.space, view.creator, view.membership);
const memberJson = (view: MemberView) => toMemberJson(view.member, view.username);

/** SpaceService (contract 9): spaces, memberships and roles; membership look-ups for other services. */
const SpacesService: ServiceSchema<SpacesSettings, SpacesMethods> = {
	name: "spaces",
	mixins: [indexesMixin(documents => ensureSpaceIndexes(spacesStore(documents)))],

	settings: {
		repairIntervalMs: 60 * 1000
	},

	actions: {
		/** GET /api/v1/spaces: the caller's spaces, newest first, each with the caller's membership. */
		listSpaces: {
			async handler(ctx: Ctx<PageParams>) {
				const { spaces, nextPageToken } = await listSpaces(this.deps(ctx), ctx.params, signedIn(ctx));
				return { spaces: spaces.map(spaceJson), nextPageToken };
			}
		},

		/** POST /api/v1/spaces: the caller becomes the first ADMIN. */
		createSpace: {
			async handler(ctx: Ctx<{ spaceId?: unknown; space?: unknown }>) {
				return spaceJson(await createSpace(this.deps(ctx), ctx.params, signedIn(ctx), requestTime(ctx)));
			}
		},

		/** GET /api/v1/spaces/{space}: members and instance ADMINs. */
		getSpace: {
			async handler(ctx: Ctx<{ space?: unknown }>) {
				return spaceJson(await getSpace(this.deps(ctx), ctx.params, signedIn(ctx)));
			}
		},

		/** PATCH /api/v1/spaces/{space}: `display_name`, `description`; space ADMINs. */
		updateSpace: {
			async handler(ctx: Ctx<{ space?: unknown; updateMask?: unknown; patch?: unknown }>) {
				return spaceJson(await updateSpace(this.deps(ctx), ctx.params, signedIn(ctx), requestTime(ctx)));
			}
		},

		/** DELETE /api/v1/spaces/{space}: space ADMINs; memos still in the space need `force`. */
		deleteSpace: {
			async handler(ctx: Ctx<{ space?: unknown; force?: unknown }>): Promise<void> {
				await deleteSpace(this.deps(ctx), ctx.params, signedIn(ctx));
			}
		},

		/** GET /api/v1/spaces/{space}/members: join order. */
		listSpaceMembers: {
			async handler(ctx: Ctx<PageParams & { space?: unknown }>) {
				const { members, nextPageToken } = await listSpaceMembers(this.deps(ctx), ctx.params, signedIn(ctx));
				return { members: members.map(memberJson), nextPageToken };
			}
		},

		/** POST /api/v1/spaces/{space}/members: `{"user": "users/bob", "role": "MEMBER"}`; space ADMINs. */
		addSpaceMember: {
			async handler(ctx: Ctx<{ space?: unknown; member?: unknown }>) {
				return memberJson(await addSpaceMember(this.deps(ctx), ctx.params, signedIn(ctx), requestTime(ctx)));
			}
		},

		/** PATCH /api/v1/spaces/{space}/members/{member}: `role`; space ADMINs; never the last ADMIN. */
		updateSpaceMember: {
			async handler(ctx: Ctx<{ space?: unknown; member?: unknown; updateMask?: unknown; patch?: unknown }>) {
				return memberJson(await updateSpaceMember(this.deps(ctx), ctx.params, signedIn(ctx)));
			}
		},

		/** DELETE /api/v1/spaces/{space}/members/{member}: space ADMINs, or the member leaving; never the last ADMIN. */
		removeSpaceMember: {
			async handler(ctx: Ctx<{ space?: unknown; member?: unknown }>): Promise<void> {
				await removeSpaceMember(this.deps(ctx), ctx.params, signedIn(ctx));
			}
		},

		/** For other services (the memos service): the spaces a user belongs to and the user's role in each. */
		membershipsOf: {
			visibility: "public",
			handler(ctx: Context<{ userId?: string }>): Promise<Membership[]> {
				return membershipsOf(this.deps(ctx).store, ctx.params.userId);
			}
		},

		/** For other services: whether a space exists and the roles of some users in it (moving memos, contract 7.5). */
		spaceMembers: {
			visibility: "public",
			handler(ctx: Context<{ spaceId?: string; userIds?: string[] }>): Promise<{ exists: boolean; roles: Record<string, Membership["role"]> }> {
				return spaceMembers(this.deps(ctx).store, ctx.params.spaceId ?? "", ctx.params.userIds ?? []);
			}
		},

		/** For the live stream's read check (contract 17): the members among some users of several spaces at once. */
		membersOfSpaces: {
			visibility: "public",
			handler(ctx: Context<{ spaceIds?: string[]; userIds?: string[] }>): Promise<Record<string, string[]>> {
				return membersOfSpaces(this.deps(ctx).store, ctx.params.spaceIds ?? [], ctx.params.userIds ?? []);
			}
		},

		/** For DeleteUser (contract 2.4): the user leaves every space; idempotent. */
		deleteUserData: {
			visibility: "public",
			async handler(ctx: Context<{ userId?: string }>): Promise<void> {
				await leaveAllSpaces(this.deps(ctx), ctx.params.userId ?? "");
			}
		},

		/** The spaces counter of InstanceStats (contract 4.11), for the instance service. */
		stats: {
			visibility: "public",
			async handler(ctx: Context): Promise<{ spaceCount: number }> {
				return { spaceCount: await spaceCount(this.deps(ctx).store) };
			}
		}
	},

	methods: {
		deps(ctx: Context): SpacesDeps {
			return {
				store: spacesStore(documentsOf(this.broker)),
				peers: {
					async usersById(ids) {
						const unique = [...new Set(ids)];
						if (unique.length === 0) return new Map();
						const users = await call(ctx, authActions.lookupUsers, { ids: unique });
						return new Map(users.map(user => [user.id, user]));
					},
					userByName: async username => (await call(ctx, authActions.lookupUsers, { usernames: [username] }))[0],
					spaceMemoCount: spaceId => call(ctx, memosActions.spaceMemoCount, { spaceId }),
					detachSpace: spaceId => call(ctx, memosActions.detachSpace, { spaceId })
				},
				announce: (event, payload) => broadcast(this.broker, event, payload)
			};
		},

		repairCounters(now: number): Promise<number> {
			return recountPendingSpaces(spacesStore(documentsOf(this.broker)), now);
		}
	},

	async started(this: SpacesThis) {
		const repair = () => this.repairCounters(Date.now()).catch((err: unknown) => this.logger.error(errorLog(err), "recounting spaces with membership changes left pending failed"));
		await repair();
		this.repairTimer = setInterval(repair, this.settings.repairIntervalMs);
		this.repairTimer.unref();
	},

	stopped(this: SpacesThis) {
		clearInterval(this.repairTimer);
	}
};

export default SpacesService;
