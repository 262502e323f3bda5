import type { Caller } from "../../shared/caller.js";
import { listPage, pageSizeParam } from "../../shared/paging/list-page.js";
import { queryStringOf } from "../../shared/request-message.js";
import { spaceFor } from "./space-access.js";
import { creatorName, type MemberView, type SpaceView } from "./space-view.js";
import type { SpacesDeps } from "./spaces-deps.js";

const LIST_SPACES = "ListSpaces";
const LIST_SPACE_MEMBERS = "ListSpaceMembers";

/** ListSpaces: the caller's memberships in the order of their spaces, newest first. */
const SPACES_SORT = { spaceCreateTime: -1, spaceSeq: -1 } as const;
/** ListSpaceMembers: join order. */
export const MEMBERS_SORT = { seq: 1 } as const;
const SORT_KEY_TYPES = { spaceCreateTime: "number", spaceSeq: "number", seq: "number" } as const;

export interface PageParams {
	pageSize?: unknown;
	pageToken?: unknown;
}

/** ListSpaces (contract 9): the caller's spaces, newest first, each with the caller's membership. */
export async function listSpaces(deps: SpacesDeps, params: PageParams, caller: Caller): Promise<{ spaces: SpaceView[]; nextPageToken: string }> {
	const { store, peers } = deps;
	const pageSize = pageSizeParam(params.pageSize);
	const { items: page, nextPageToken } = await listPage(store.members, {
		operation: LIST_SPACES,
		query: { caller: caller.id },
		pageSize,
		pageToken: queryStringOf(params.pageToken, "pageToken"),
		sort: SPACES_SORT,
		keyTypes: SORT_KEY_TYPES,
		branches: [{ userId: caller.id }]
	});
	const spaces = new Map((await store.spaces.find({ _id: { $in: page.map(m => m.spaceId) } })).map(s => [s._id, s]));
	const users = await peers.usersById([...spaces.values()].map(s => s.creatorId));
	const listed = page.flatMap(membership => {
		const space = spaces.get(membership.spaceId);
		return space === undefined ? [] : [{ space, membership, creator: creatorName(users, space.creatorId) }];
	});
	return { spaces: listed, nextPageToken };
}

/** ListSpaceMembers (contract 9): members and instance ADMINs see the members in join order. */
export async function listSpaceMembers(
	deps: SpacesDeps,
	params: PageParams & { space?: unknown },
	caller: Caller
): Promise<{ members: MemberView[]; nextPageToken: string }> {
	const { store, peers } = deps;
	const { space } = await spaceFor(store, params.space, caller, "member");
	const pageSize = pageSizeParam(params.pageSize);
	const { items: page, nextPageToken } = await listPage(store.members, {
		operation: LIST_SPACE_MEMBERS,
		query: { space: space._id },
		pageSize,
		pageToken: queryStringOf(params.pageToken, "pageToken"),
		sort: MEMBERS_SORT,
		keyTypes: SORT_KEY_TYPES,
		branches: [{ spaceId: space._id }]
	});
	const users = await peers.usersById(page.map(m => m.userId));
	const members = page.flatMap(member => {
		const user = users.get(member.userId);
		return user === undefined ? [] : [{ member, username: user.username }];
	});
	return { members, nextPageToken };
}
