import type { Caller } from "../../shared/caller.js";
import { notFound } from "../../shared/errors.js";
import { assertCanDelete } from "./memo-access.js";
import type { MemosDeps } from "./memos-deps.js";
import { purgeMemoExtras } from "./memos-store.js";
import { detachMemos } from "./relations.js";

/** Soft-deleted memos are purged this long after deletion (contract 7.1, 14). */
export const DELETED_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Erases memos at once, with what they own and their attachments; the relations must be detached before. */
async function purgeMemos(deps: MemosDeps, ids: string[]): Promise<number> {
	const purged = await deps.store.memos.remove({ _id: { $in: ids } }, { multi: true });
	await purgeMemoExtras(deps.store, ids);
	await deps.peers.deleteAttachments(ids);
	return purged;
}

/** DeleteMemo (contract 7.6): soft delete, or purge with `force`. */
export async function deleteMemo(deps: MemosDeps, caller: Caller, id: string, force: boolean, now: number): Promise<void> {
	const { memos } = deps.store;
	const memo = await memos.findOne({ _id: id });
	assertCanDelete(memo, id, caller, force, await deps.peers.spacesOf(caller));
	await detachMemos(deps.store, [id]);
	if (force) {
		await purgeMemos(deps, [id]);
		return;
	}
	const changed = await memos.update({ _id: id, deleteTime: null }, { $set: { deleteTime: now } });
	if (changed === 0) throw notFound(`memo "memos/${id}" not found`);
	await deps.peers.hideAttachments([id]);
}

/** Erases memos soft-deleted more than the retention period before `now`, with their attachments. */
export async function purgeExpiredMemos(deps: MemosDeps, now: number): Promise<number> {
	const expired = { deleteTime: { $lt: now - DELETED_RETENTION_MS } };
	const ids = (await deps.store.memos.find(expired, { projection: { _id: 1 } })).map(memo => memo._id);
	if (ids.length === 0) return 0;
	return purgeMemos(deps, ids);
}

/**
 * For DeleteUser (contract 2.4): the user's reactions, share links and shortcuts, and their memos purged
 * as with `force` (others' comments on them survive as ordinary memos). Idempotent.
 */
export async function deleteUserData(deps: MemosDeps, userId: string): Promise<void> {
	const { store } = deps;
	await store.reactions.remove({ creatorId: userId }, { multi: true });
	await store.shares.remove({ creatorId: userId }, { multi: true });
	await store.shortcuts.remove({ userId }, { multi: true });
	const ids = (await store.memos.find({ creatorId: userId }, { projection: { _id: 1 } })).map(memo => memo._id);
	if (ids.length === 0) return;
	await detachMemos(store, ids);
	await purgeMemos(deps, ids);
}
