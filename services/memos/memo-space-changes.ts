import type { Caller } from "../../shared/caller.js";
import { changeEachMemo } from "./memo-bulk-changes.js";
import type { MemoDoc } from "./memo-doc.js";
import { assertCanMove, readableInSpace } from "./memo-spaces.js";
import type { MemosDeps } from "./memos-deps.js";
import type { MemosStore } from "./memos-store.js";

/** Memos changing space: moved by UpdateMemo (contract 7.5), or left by a deleted space (contract 9). */

/** The checks of moving `memo` to `spaceId` (contract 7.5); nothing to check for no space or its own. */
export async function checkSpaceMove(deps: MemosDeps, caller: Caller, memo: MemoDoc, spaceId: string | null | undefined): Promise<void> {
	if (spaceId === undefined || spaceId === null || spaceId === memo.spaceId) return;
	const spaces = await deps.peers.spacesOf(caller);
	const creatorIsCaller = memo.creatorId === caller.id;
	if (creatorIsCaller && spaces.has(spaceId)) return;
	const destination = await deps.peers.spaceMembers(spaceId, [memo.creatorId]);
	assertCanMove(caller, spaces, spaceId, { exists: destination.exists, creatorIsMember: Object.hasOwn(destination.roles, memo.creatorId) });
}

/** Whether the memo's space or its readability in the space changes: its attachments move along (contract 8.1, 7.5). */
export function movesAttachments(before: MemoDoc, after: Pick<MemoDoc, "spaceId" | "state" | "visibility">): boolean {
	return before.spaceId !== after.spaceId || readableInSpace(before) !== readableInSpace(after);
}

/** Memos (not deleted) still placed in a space: DeleteSpace without force refuses them (contract 9). */
export function spaceMemoCount(store: MemosStore, spaceId: string): Promise<number> {
	return store.memos.count({ spaceId, deleteTime: null });
}

/**
 * Every memo of a deleted space loses it, SPACE memos become PRIVATE (contract 9). Each memo not
 * deleted is updated as UpdateMemo updates one: its update time moves, and the change is told to
 * webhooks and live streams (to those who can read it then: a SPACE memo's creator alone), a
 * bounded batch at a time (memo-bulk-changes.ts). Deleted memos leave silently.
 */
export async function detachSpace(deps: MemosDeps, spaceId: string, actor: Caller | null, now: number): Promise<void> {
	const { memos } = deps.store;
	await changeEachMemo(deps, {
		select: { spaceId, deleteTime: null },
		write: memo => ({
			unchanged: { visibility: memo.visibility },
			update: { $set: { spaceId: null, visibility: memo.visibility === "SPACE" ? "PRIVATE" : memo.visibility, updateTime: now } }
		}),
		change: "memo.updated",
		actor,
		now
	});
	await memos.update({ spaceId, visibility: "SPACE" }, { $set: { spaceId: null, visibility: "PRIVATE" } }, { multi: true });
	await memos.update({ spaceId }, { $set: { spaceId: null } }, { multi: true });
	await deps.peers.attachmentsLeaveSpace(spaceId);
}
