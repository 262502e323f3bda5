import { readableBy } from "./memo-access.js";
import type { MemoDoc } from "./memo-doc.js";
import { memoEvents, type ChangeReaders, type ChangeToCheck } from "./memos.contract.js";
import type { MemosDeps } from "./memos-deps.js";

/**
 * Who may be told of a change (contract 17's live stream): those who may read, now, every memo
 * the change names (the memo, and the memo it comments on). One query for the memos of every
 * change, and one membership look-up for the spaces among them, whatever the number of changes,
 * spaces and users (DESIGN: a bounded number of calls across the bus).
 */

/** No user has this id: a reader who is neither the creator nor in any space. */
const ANY_SIGNED_IN = "";

const NOBODY: ChangeReaders = { everySignedIn: false, userIds: [] };

function idOf(name: string | undefined, collection: "memos/" | "users/"): string | null {
	return typeof name === "string" && name.startsWith(collection) && name.length > collection.length ? name.slice(collection.length) : null;
}

/** The memo as the rule judges it: a deletion is told to those who could read the memo just before. */
function judged(memo: MemoDoc | undefined, deletedNow: boolean): MemoDoc | undefined {
	return memo !== undefined && deletedNow ? { ...memo, deleteTime: null, cleanup: null } : memo;
}

function both(a: ChangeReaders, b: ChangeReaders): ChangeReaders {
	if (a.everySignedIn) return b;
	if (b.everySignedIn) return a;
	const inB = new Set(b.userIds);
	return { everySignedIn: false, userIds: a.userIds.filter(id => inB.has(id)) };
}

export async function changeReaders(deps: MemosDeps, changes: readonly ChangeToCheck[], userIds: readonly string[]): Promise<ChangeReaders[]> {
	const subjects = changes.map(({ event, change }) => ({
		memoId: idOf(change?.memo, "memos/"),
		parentId: change?.parent === undefined ? undefined : idOf(change.parent, "memos/"),
		creatorId: idOf(change?.creator, "users/"),
		deleted: event === memoEvents.deleted.name
	}));
	const ids = [...new Set(subjects.flatMap(s => [s.memoId, s.parentId]).filter((id): id is string => typeof id === "string"))];
	const memos = new Map((ids.length === 0 ? [] : await deps.store.memos.find({ _id: { $in: ids } })).map(memo => [memo._id, memo]));
	const spaceIds = [...new Set([...memos.values()].flatMap(memo => (memo.visibility === "SPACE" && memo.spaceId !== null ? [memo.spaceId] : [])))];
	// Unknown memberships (older spaces nodes) fail closed: a SPACE memo's change goes to its creator alone.
	const bySpace = (spaceIds.length === 0 ? {} : await deps.peers.membersOfSpaces(spaceIds, [...userIds])) ?? {};
	const members = new Map(Object.entries(bySpace).map(([spaceId, ids]) => [spaceId, new Set(ids)]));

	const readersOf = (memo: MemoDoc | undefined): ChangeReaders => {
		if (memo === undefined) return NOBODY;
		if (readableBy(memo, ANY_SIGNED_IN, false)) return { everySignedIn: true, userIds: [] };
		const inSpace = (memo.spaceId === null ? undefined : members.get(memo.spaceId)) ?? new Set<string>();
		return { everySignedIn: false, userIds: userIds.filter(id => readableBy(memo, id, inSpace.has(id))) };
	};
	return subjects.map(subject => {
		if (subject.memoId === null || subject.parentId === null) return NOBODY;
		const memo = memos.get(subject.memoId);
		// Purged already: who could read it is gone with it, its creator always could.
		const own = memo === undefined && subject.deleted ? { everySignedIn: false, userIds: userIds.filter(id => id === subject.creatorId) } : readersOf(judged(memo, subject.deleted));
		return subject.parentId === undefined ? own : both(own, readersOf(memos.get(subject.parentId)));
	});
}
