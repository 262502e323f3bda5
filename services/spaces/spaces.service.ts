import type { Context, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { signedIn, type Caller, type RequestMeta } from "../../shared/caller.js";
import { broadcast, call, type EventRef } from "../../shared/contract.js";
import { alreadyExists, failedPrecondition, notFound, permissionDenied } from "../../shared/errors.js";
import { parseUpdateMask } from "../../shared/field-mask.js";
import { pathId, resolveId } from "../../shared/ids.js";
import { formatName } from "../../shared/names.js";
import { listPage, pageSizeParam } from "../../shared/paging/list-page.js";
import { nextSequence } from "../../shared/sequence.js";
import { fieldOf, messageOf, queryBoolOf, queryStringOf } from "../../shared/request-message.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import { DuplicateKeyError, type Collection } from "../../shared/store/document-store.js";
import { authActions, type UserRef } from "../auth/auth.contract.js";
import { memosActions } from "../memos/memos.contract.js";
import { changeRole, removeMember, type GuardCollections } from "./admin-guard.js";
import { assertSpaceAccess, spaceNotFound } from "./space-access.js";
import { memberId, SPACE_MEMBERS, SPACE_SEQUENCES, SPACES, type MemberDoc, type SpaceDoc, type SpaceRole } from "./space-doc.js";
import { spacesEvents, type Membership, type SpaceMemberEvent } from "./spaces.contract.js";
import {
	joinableUser,
	readDescription,
	readDisplayName,
	readRole,
	readUserName
} from "./space-input.js";
import { toMemberJson, toSpaceJson } from "./space-json.js";

const LIST_SPACES = "ListSpaces";
const LIST_SPACE_MEMBERS = "ListSpaceMembers";

/** ListSpaces: the caller's memberships in the order of their spaces, newest first. */
const SPACES_SORT = { spaceCreateTime: -1, spaceSeq: -1 } as const;
/** ListSpaceMembers: join order. */
const MEMBERS_SORT = { seq: 1 } as const;
const SORT_KEY_TYPES = { spaceCreateTime: "number", spaceSeq: "number", seq: "number" } as const;

interface SpacesMethods {
	spaceCollection(): Collection<SpaceDoc>;
	memberCollection(): Collection<MemberDoc>;
	guard(): GuardCollections;
	nextSeq(): Promise<number>;
	/** The space and the caller's membership, checked by assertSpaceAccess. */
	spaceFor(id: unknown, caller: Caller, need: "member" | "admin"): Promise<{ space: SpaceDoc; membership: MemberDoc | null }>;
	/** Users by id, in one `auth.lookupUsers` call. */
	usersById(ctx: Context, ids: Iterable<string>): Promise<Map<string, UserRef>>;
	/** The membership of `{member}` (a username) in a space; NOT_FOUND when there is none. */
	memberByUsername(ctx: Context, spaceId: string, username: unknown): Promise<{ member: MemberDoc; user: UserRef }>;
	/** Removes the memberships, then the space; its memos are detached first (force semantics). */
	eraseSpace(ctx: Context, spaceId: string): Promise<void>;
	announce(event: EventRef<SpaceMemberEvent>, payload: SpaceMemberEvent): Promise<void>;
}

type Ctx<P> = Context<P, RequestMeta>;


/** SpaceService (contract 9): spaces, memberships and roles; membership look-ups for other services. */
const SpacesService: ServiceSchema<ServiceSettingSchema, SpacesMethods> = {
	name: "spaces",

	actions: {
		/** GET /api/v1/spaces: the caller's spaces, newest first, each with the caller's membership. */
		listSpaces: {
			async handler(ctx: Ctx<{ pageSize?: unknown; pageToken?: unknown }>) {
				const caller = signedIn(ctx);
				const pageSize = pageSizeParam(ctx.params.pageSize);
				const { items: page, nextPageToken } = await listPage(this.memberCollection(), {
					operation: LIST_SPACES,
					query: { caller: caller.id },
					pageSize,
					pageToken: queryStringOf(ctx.params.pageToken, "pageToken"),
					sort: SPACES_SORT,
					keyTypes: SORT_KEY_TYPES,
					branches: [{ userId: caller.id }]
				});
				const spaces = new Map((await this.spaceCollection().find({ _id: { $in: page.map(m => m.spaceId) } })).map(s => [s._id, s]));
				const users = await this.usersById(ctx, [...spaces.values()].map(s => s.creatorId));
				const listed = page.flatMap(membership => {
					const space = spaces.get(membership.spaceId);
					if (space === undefined) return [];
					return [toSpaceJson(space, creatorName(users, space.creatorId), membership)];
				});
				return { spaces: listed, nextPageToken };
			}
		},

		/** POST /api/v1/spaces: the caller becomes the first ADMIN. */
		createSpace: {
			async handler(ctx: Ctx<{ spaceId?: unknown; space?: unknown }>) {
				const caller = signedIn(ctx);
				const spaceIdParam = queryStringOf(ctx.params.spaceId, "spaceId");
				const id = resolveId(spaceIdParam, "spaceId", "space");
				const body = messageOf(ctx.params.space, "space");
				const displayName = readDisplayName(fieldOf(body, "displayName"));
				const description = readDescription(fieldOf(body, "description"));
				const now = ctx.meta.requestTime ?? Date.now();
				const space: SpaceDoc = {
					_id: id,
					seq: await this.nextSeq(),
					displayName,
					description,
					creatorId: caller.id,
					createTime: now,
					updateTime: now,
					memberCount: 1,
					adminCount: 1
				};
				try {
					await this.spaceCollection().insert(space);
				} catch (err) {
					if (err instanceof DuplicateKeyError) throw alreadyExists(`space "spaces/${id}" already exists`);
					throw err;
				}
				const membership: MemberDoc = {
					_id: memberId(id, caller.id),
					spaceId: id,
					userId: caller.id,
					role: "ADMIN",
					joinTime: now,
					seq: await this.nextSeq(),
					spaceCreateTime: space.createTime,
					spaceSeq: space.seq
				};
				try {
					await this.memberCollection().insert(membership);
				} catch (err) {
					await this.spaceCollection().remove({ _id: id });
					throw err;
				}
				await this.announce(spacesEvents.memberAdded, { spaceId: id, userIds: [caller.id] });
				return toSpaceJson(space, formatName("user", caller.username), membership);
			}
		},

		/** GET /api/v1/spaces/{space}: members and instance ADMINs. */
		getSpace: {
			async handler(ctx: Ctx<{ space?: unknown }>) {
				const caller = signedIn(ctx);
				const { space, membership } = await this.spaceFor(ctx.params.space, caller, "member");
				const users = await this.usersById(ctx, [space.creatorId]);
				return toSpaceJson(space, creatorName(users, space.creatorId), membership);
			}
		},

		/** PATCH /api/v1/spaces/{space}: `display_name`, `description`; space ADMINs. */
		updateSpace: {
			async handler(ctx: Ctx<{ space?: unknown; updateMask?: unknown; patch?: unknown }>) {
				const caller = signedIn(ctx);
				const { space, membership } = await this.spaceFor(ctx.params.space, caller, "admin");
				const paths = parseUpdateMask(queryStringOf(ctx.params.updateMask, "updateMask"), ["display_name", "description"], { required: true });
				const body = messageOf(ctx.params.patch, "space");
				const set: Partial<SpaceDoc> = { updateTime: ctx.meta.requestTime ?? Date.now() };
				if (paths.includes("display_name")) set.displayName = readDisplayName(fieldOf(body, "displayName"));
				if (paths.includes("description")) set.description = readDescription(fieldOf(body, "description"));
				const updated = await this.spaceCollection().findOneAndUpdate({ _id: space._id }, { $set: set });
				if (updated === null) throw spaceNotFound(space._id);
				const users = await this.usersById(ctx, [updated.creatorId]);
				return toSpaceJson(updated, creatorName(users, updated.creatorId), membership);
			}
		},

		/**
		 * DELETE /api/v1/spaces/{space}: space ADMINs. Memos still placed in the space need
		 * `force`, which detaches them (SPACE memos become PRIVATE) before the space goes.
		 */
		deleteSpace: {
			async handler(ctx: Ctx<{ space?: unknown; force?: unknown }>): Promise<void> {
				const caller = signedIn(ctx);
				const force = queryBoolOf(ctx.params, "force");
				const { space } = await this.spaceFor(ctx.params.space, caller, "admin");
				if (!force) {
					const placed = await call(ctx, memosActions.spaceMemoCount, { spaceId: space._id });
					if (placed > 0) throw failedPrecondition(`space "spaces/${space._id}" still holds ${placed} memos; delete with force to detach them`);
				}
				await this.eraseSpace(ctx, space._id);
			}
		},

		/** GET /api/v1/spaces/{space}/members: join order. */
		listSpaceMembers: {
			async handler(ctx: Ctx<{ space?: unknown; pageSize?: unknown; pageToken?: unknown }>) {
				const caller = signedIn(ctx);
				const { space } = await this.spaceFor(ctx.params.space, caller, "member");
				const pageSize = pageSizeParam(ctx.params.pageSize);
				const { items: page, nextPageToken } = await listPage(this.memberCollection(), {
					operation: LIST_SPACE_MEMBERS,
					query: { space: space._id },
					pageSize,
					pageToken: queryStringOf(ctx.params.pageToken, "pageToken"),
					sort: MEMBERS_SORT,
					keyTypes: SORT_KEY_TYPES,
					branches: [{ spaceId: space._id }]
				});
				const users = await this.usersById(ctx, page.map(m => m.userId));
				const members = page.flatMap(m => {
					const user = users.get(m.userId);
					return user === undefined ? [] : [toMemberJson(m, user.username)];
				});
				return { members, nextPageToken };
			}
		},

		/** POST /api/v1/spaces/{space}/members: `{"user": "users/bob", "role": "MEMBER"}`; space ADMINs. */
		addSpaceMember: {
			async handler(ctx: Ctx<{ space?: unknown; member?: unknown }>) {
				const caller = signedIn(ctx);
				const { space } = await this.spaceFor(ctx.params.space, caller, "admin");
				const body = messageOf(ctx.params.member, "member");
				const username = readUserName(fieldOf(body, "user"), "member.user");
				const role = readRole(fieldOf(body, "role"), "MEMBER");
				const [found] = await call(ctx, authActions.lookupUsers, { usernames: [username] });
				const user = joinableUser(found, username);
				const member: MemberDoc = {
					_id: memberId(space._id, user.id),
					spaceId: space._id,
					userId: user.id,
					role,
					joinTime: ctx.meta.requestTime ?? Date.now(),
					seq: await this.nextSeq(),
					spaceCreateTime: space.createTime,
					spaceSeq: space.seq
				};
				try {
					await this.memberCollection().insert(member);
				} catch (err) {
					if (err instanceof DuplicateKeyError) throw alreadyExists(`user "users/${username}" is already a member of space "spaces/${space._id}"`);
					throw err;
				}
				// Counted after the insert: adminCount may lag behind the memberships, never run ahead (admin-guard.ts).
				await this.spaceCollection().update({ _id: space._id }, { $inc: role === "ADMIN" ? { memberCount: 1, adminCount: 1 } : { memberCount: 1 } });
				await this.announce(spacesEvents.memberAdded, { spaceId: space._id, userIds: [user.id] });
				return toMemberJson(member, user.username);
			}
		},

		/** PATCH /api/v1/spaces/{space}/members/{member}: `role`; space ADMINs; never the last ADMIN. */
		updateSpaceMember: {
			async handler(ctx: Ctx<{ space?: unknown; member?: unknown; updateMask?: unknown; patch?: unknown }>) {
				const caller = signedIn(ctx);
				const { space } = await this.spaceFor(ctx.params.space, caller, "admin");
				parseUpdateMask(queryStringOf(ctx.params.updateMask, "updateMask"), ["role"], { required: true });
				const role: SpaceRole = readRole(fieldOf(messageOf(ctx.params.patch, "member"), "role"));
				const { member, user } = await this.memberByUsername(ctx, space._id, ctx.params.member);
				const changed = await changeRole(this.guard(), member._id, role);
				if (changed === null) throw notFound(`user "users/${user.username}" is not a member of space "spaces/${space._id}"`);
				if (member.role !== changed.role) await this.announce(spacesEvents.memberUpdated, { spaceId: space._id, userIds: [user.id] });
				return toMemberJson(changed, user.username);
			}
		},

		/** DELETE /api/v1/spaces/{space}/members/{member}: space ADMINs, or the member leaving; never the last ADMIN. */
		removeSpaceMember: {
			async handler(ctx: Ctx<{ space?: unknown; member?: unknown }>): Promise<void> {
				const caller = signedIn(ctx);
				const { space, membership } = await this.spaceFor(ctx.params.space, caller, "member");
				const leaving = ctx.params.member === caller.username && membership !== null;
				if (!leaving && membership?.role !== "ADMIN" && caller.role !== "ADMIN") {
					throw permissionDenied(`only an ADMIN of space "spaces/${space._id}" may remove other members`);
				}
				const { member, user } = await this.memberByUsername(ctx, space._id, ctx.params.member);
				const removed = await removeMember(this.guard(), member._id);
				if (removed === null) throw notFound(`user "users/${user.username}" is not a member of space "spaces/${space._id}"`);
				await this.announce(spacesEvents.memberRemoved, { spaceId: space._id, userIds: [user.id] });
			}
		},

		/** For other services (the memos service): the spaces a user belongs to and the user's role in each. */
		membershipsOf: {
			visibility: "public",
			async handler(ctx: Context<{ userId?: string }>): Promise<Membership[]> {
				const userId = ctx.params.userId;
				if (typeof userId !== "string" || userId === "") return [];
				const found = await this.memberCollection().find({ userId }, { projection: { spaceId: 1, role: 1 } });
				return found.map(m => ({ spaceId: m.spaceId, role: m.role }));
			}
		},

		/** For other services: whether a space exists and the roles of some users in it (moving memos, contract 7.5). */
		spaceMembers: {
			visibility: "public",
			async handler(ctx: Context<{ spaceId?: string; userIds?: string[] }>): Promise<{ exists: boolean; roles: Record<string, SpaceRole> }> {
				const spaceId = ctx.params.spaceId ?? "";
				const exists = (await this.spaceCollection().count({ _id: spaceId })) > 0;
				const roles: Record<string, SpaceRole> = {};
				if (!exists) return { exists, roles };
				const ids = (ctx.params.userIds ?? []).map(userId => memberId(spaceId, userId));
				for (const m of await this.memberCollection().find({ _id: { $in: ids } })) roles[m.userId] = m.role;
				return { exists, roles };
			}
		},

		/**
		 * For DeleteUser (contract 2.4): removes the user's memberships. Where the user is the
		 * last ADMIN, the longest-standing other member becomes ADMIN; a space left without any
		 * member is deleted as with `force`. Idempotent.
		 */
		deleteUserData: {
			visibility: "public",
			async handler(ctx: Context<{ userId?: string }>): Promise<void> {
				const userId = ctx.params.userId ?? "";
				for (const membership of await this.memberCollection().find({ userId })) {
					if (membership.role === "ADMIN") {
						const space = await this.spaceCollection().findOne({ _id: membership.spaceId });
						if (space !== null && space.adminCount <= 1) {
							const [successor] = await this.memberCollection().find({ spaceId: space._id, userId: { $ne: userId } }, { sort: MEMBERS_SORT, limit: 1 });
							if (successor === undefined) {
								await this.eraseSpace(ctx, space._id);
								continue;
							}
							await changeRole(this.guard(), successor._id, "ADMIN");
							await this.announce(spacesEvents.memberUpdated, { spaceId: space._id, userIds: [successor.userId] });
						}
					}
					if ((await removeMember(this.guard(), membership._id)) !== null) {
						await this.announce(spacesEvents.memberRemoved, { spaceId: membership.spaceId, userIds: [userId] });
					}
				}
			}
		},

		/** The spaces counter of InstanceStats (contract 4.11), for the instance service. */
		stats: {
			visibility: "public",
			async handler(): Promise<{ spaceCount: number }> {
				return { spaceCount: await this.spaceCollection().count({}) };
			}
		}
	},

	methods: {
		spaceCollection(): Collection<SpaceDoc> {
			return documentsOf(this.broker).collection<SpaceDoc>(SPACES);
		},

		memberCollection(): Collection<MemberDoc> {
			return documentsOf(this.broker).collection<MemberDoc>(SPACE_MEMBERS);
		},

		guard(): GuardCollections {
			return { spaces: this.spaceCollection(), members: this.memberCollection() };
		},

		/** One counter for spaces and memberships: unique and increasing across replicas. */
		async nextSeq(): Promise<number> {
			return nextSequence(documentsOf(this.broker), SPACE_SEQUENCES, SPACES);
		},

		async spaceFor(idParam: unknown, caller: Caller, need: "member" | "admin") {
			const id = pathId(idParam);
			const [space, membership] = await Promise.all([
				this.spaceCollection().findOne({ _id: id }),
				this.memberCollection().findOne({ _id: memberId(id, caller.id) })
			]);
			assertSpaceAccess(space, membership, id, caller, need);
			return { space, membership };
		},

		async usersById(ctx: Context, ids: Iterable<string>): Promise<Map<string, UserRef>> {
			const unique = [...new Set(ids)];
			if (unique.length === 0) return new Map();
			const users = await call(ctx, authActions.lookupUsers, { ids: unique });
			return new Map(users.map(user => [user.id, user]));
		},

		async memberByUsername(ctx: Context, spaceId: string, username: unknown) {
			const name = pathId(username);
			const missing = () => notFound(`user "users/${name}" is not a member of space "spaces/${spaceId}"`);
			if (name === "") throw missing();
			const [user] = await call(ctx, authActions.lookupUsers, { usernames: [name] });
			const member = user === undefined ? null : await this.memberCollection().findOne({ _id: memberId(spaceId, user.id) });
			if (user === undefined || member === null) throw missing();
			return { member, user };
		},

		async eraseSpace(ctx: Context, spaceId: string): Promise<void> {
			await call(ctx, memosActions.detachSpace, { spaceId });
			const members = await this.memberCollection().find({ spaceId }, { projection: { userId: 1 } });
			await this.memberCollection().remove({ spaceId }, { multi: true });
			await this.announce(spacesEvents.memberRemoved, { spaceId, userIds: members.map(m => m.userId) });
			// Memos placed while the memberships were still there follow the others out.
			await call(ctx, memosActions.detachSpace, { spaceId });
			await this.spaceCollection().remove({ _id: spaceId });
		},

		async announce(event: EventRef<SpaceMemberEvent>, payload: SpaceMemberEvent): Promise<void> {
			await broadcast(this.broker, event, payload);
		}
	},

	async started() {
		const members = this.memberCollection();
		await members.ensureIndex({ fields: { userId: 1, spaceCreateTime: -1, spaceSeq: -1 } });
		await members.ensureIndex({ fields: { spaceId: 1, seq: 1 } });
	}
};

function creatorName(users: Map<string, UserRef>, creatorId: string): string {
	const user = users.get(creatorId);
	return user === undefined ? "" : formatName("user", user.username);
}

export default SpacesService;
