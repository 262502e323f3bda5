import type { Caller } from "../../shared/caller.js";
import { invalidArgument, notFound } from "../../shared/errors.js";
import { formatName } from "../../shared/names.js";
import { toTimestamp } from "../../shared/proto-json.js";
import type { Collection, Filter } from "../../shared/store/document-store.js";
import type { UserRef } from "../auth/auth.contract.js";
import type { MemoDoc } from "./memo-doc.js";
import { readableBranches } from "./readable-query.js";

/**
 * GetUserStats and ListAllUserStats (contract 16): over the memos of a user that the caller can
 * read, NORMAL, not deleted and not comments. Every query starts with the equality prefix of a
 * memos index (memo-indexes.ts): parentId, state, deleteTime, then the creator or a visibility.
 */

export interface UserStatsDeps {
	memos: Collection<MemoDoc>;
	caller: Caller | null;
	/** The spaces the caller belongs to. */
	spaceIds: readonly string[];
	lookupUsers(query: { ids?: string[]; usernames?: string[] }): Promise<UserRef[]>;
}

const COUNTED = { parentId: null, state: "NORMAL", deleteTime: null } as const;
const PROJECTION = { creatorId: 1, tags: 1, property: 1, pinned: 1, createTime: 1, updateTime: 1 } as const;

type CountedMemo = Pick<MemoDoc, "_id" | "creatorId" | "tags" | "property" | "pinned" | "createTime" | "updateTime">;

/** The counted memos of `creatorId` the caller can read, as one index-backed query. */
function readableOfCreator(creatorId: string, caller: Caller | null, spaceIds: readonly string[]): Filter {
	const own = { ...COUNTED, creatorId };
	if (caller?.id === creatorId) return own;
	if (caller === null) return { ...own, visibility: "PUBLIC" };
	const readable: Filter[] = [{ visibility: { $in: ["PUBLIC", "PROTECTED"] } }];
	if (spaceIds.length > 0) readable.push({ visibility: "SPACE", spaceId: { $in: [...spaceIds] } });
	return { ...own, $or: readable };
}

function toUserStats(username: string, memos: readonly CountedMemo[]): Record<string, unknown> {
	const tagCount: Record<string, number> = {};
	const types = { linkCount: 0, codeCount: 0, todoCount: 0, undoCount: 0 };
	for (const memo of memos) {
		for (const tag of memo.tags) tagCount[tag] = (tagCount[tag] ?? 0) + 1;
		if (memo.property.hasLink) types.linkCount++;
		if (memo.property.hasCode) types.codeCount++;
		if (memo.property.hasTaskList) types.todoCount++;
		if (memo.property.hasIncompleteTasks) types.undoCount++;
	}
	const byCreation = [...memos].sort((a, b) => a.createTime - b.createTime || a._id.localeCompare(b._id));
	return {
		name: `users/${username}/stats`,
		memoTypeStats: types,
		tagCount,
		memoCreatedTimestamps: byCreation.map(memo => toTimestamp(memo.createTime)),
		memoUpdatedTimestamps: byCreation.map(memo => toTimestamp(memo.updateTime)),
		pinnedMemos: byCreation.filter(memo => memo.pinned).map(memo => formatName("memo", memo._id)),
		totalMemoCount: memos.length
	};
}

/** GetUserStats: `users/{user}:getStats`. */
export async function getUserStats(deps: UserStatsDeps, username: unknown): Promise<Record<string, unknown>> {
	const name = typeof username === "string" ? username : "";
	const [user] = name === "" ? [] : await deps.lookupUsers({ usernames: [name] });
	if (!user) throw notFound(`user ${name} not found`);
	const memos = (await deps.memos.find(readableOfCreator(user.id, deps.caller, deps.spaceIds), { projection: PROJECTION })) as CountedMemo[];
	return toUserStats(user.username, memos);
}

/**
 * ListAllUserStats: `users:stats`, one entry per user with at least one memo the caller can read.
 * The readable memos are read branch by branch (the caller's own, PUBLIC, PROTECTED, each of
 * their spaces), each branch served by an index, then grouped by creator.
 */
export async function listAllUserStats(deps: UserStatsDeps, params: { state?: unknown; filter?: unknown }): Promise<Record<string, unknown>> {
	if (params.filter !== undefined && params.filter !== "") throw invalidArgument("filter is not supported by ListAllUserStats");
	if (params.state !== undefined && params.state !== "" && params.state !== "NORMAL" && params.state !== "STATE_UNSPECIFIED") {
		throw invalidArgument("state: only NORMAL memos are counted");
	}
	const runs = await Promise.all(readableBranches(COUNTED, deps.caller, deps.spaceIds).map(branch => deps.memos.find(branch, { projection: PROJECTION })));
	const byCreator = new Map<string, Map<string, CountedMemo>>();
	for (const memo of runs.flat() as CountedMemo[]) {
		const memos = byCreator.get(memo.creatorId) ?? new Map<string, CountedMemo>();
		memos.set(memo._id, memo);
		byCreator.set(memo.creatorId, memos);
	}
	if (byCreator.size === 0) return { stats: [] };
	const users = await deps.lookupUsers({ ids: [...byCreator.keys()] });
	const stats = users
		.sort((a, b) => a.username.localeCompare(b.username))
		.map(user => toUserStats(user.username, [...(byCreator.get(user.id)?.values() ?? [])]));
	return { stats };
}
