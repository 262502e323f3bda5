import { generateId } from "../../shared/ids.js";
import type { LinkTarget } from "../attachments/attachments.contract.js";
import type { MemoDoc, PendingLinks } from "./memo-doc.js";
import { readableInSpace } from "./memo-spaces.js";
import type { MemosDeps } from "./memos-deps.js";

/** What the attachments service needs to link attachments to `memo` (contract 7.9). */
export function linkTarget(memo: MemoDoc): LinkTarget {
	return { id: memo._id, creatorId: memo.creatorId, spaceId: memo.spaceId, spaceReadable: readableInSpace(memo) };
}

/**
 * The `attachments` of CreateMemo and UpdateMemo (contract 7.3, 7.5) live in the attachments
 * service, so writing the memo and linking them cannot be atomic; it is made safe by a mark,
 * idempotent steps and a repair pass (issue 21), on both store adapters alike:
 * 1. The memo's own write (its insert, or its update) carries the mark: `cleanup: "link"` and
 *    `linking`, the attachment names in display order, as the attachments service checked them
 *    (or none, when an update moves the memo to another space or changes its readability there).
 * 2. The attachments service makes them the memo's set (replacing it: the same set again is
 *    no change, so the step can run any number of times), or moves the attachments along.
 * 3. The mark is cleared, only if it is still this one.
 * Readers meanwhile see the memo with the attachments it had (each attachment either still
 * unlinked and its creator's, or linked to the memo), never one linked to a memo that does not
 * exist. A crash after step 1 leaves the mark; the repair pass (memo-cleanup.ts) runs steps 2
 * and 3 again. A later change of the memo's attachments (UpdateMemo, SetMemoAttachments)
 * replaces or clears the mark, so the repair never undoes it.
 */

/**
 * Step 1: the fields of the memo's write that mark its attachments as to be brought in line:
 * `names` linked (in that order, the others unlinked), or with `names` null the attachments
 * it has moved along with its space and readability in it.
 */
export function linkMark(names: readonly string[] | null): { cleanup: "link"; linking: PendingLinks } {
	return { cleanup: "link", linking: { mark: generateId(), names: names === null ? null : [...names] } };
}

/**
 * The mark an UpdateMemo writes: its own `attachments` (`names`) to link; else, when the memo's
 * space or its readability there changes (`moves`), a link left pending by an earlier request,
 * or the attachments to move along; else none.
 */
export function updateMark(before: MemoDoc, names: string[] | undefined, moves: boolean): Partial<ReturnType<typeof linkMark>> {
	if (names !== undefined) return linkMark(names);
	if (!moves) return {};
	return linkMark(before.cleanup === "link" ? (before.linking?.names ?? null) : null);
}

/** The attachment names the attachments service answered when it checked a request's `attachments`. */
export function checkedNames(checked: readonly Record<string, unknown>[] | undefined): string[] {
	return (checked ?? []).map(ref => String(ref.name));
}

/** Steps 2 and 3 for `memo` as written with its mark; answers its attachments in display order when it linked them. */
export async function applyLinks(deps: MemosDeps, memo: MemoDoc): Promise<Record<string, unknown>[]> {
	if (memo.cleanup !== "link") return [];
	const names = memo.linking?.names ?? null;
	let linked: Record<string, unknown>[] = [];
	if (names === null) await deps.peers.attachmentsFollow(memo._id, memo.spaceId, readableInSpace(memo));
	else linked = await deps.peers.linkAttachments(linkTarget(memo), names.map(name => ({ name })), true);
	await deps.store.memos.update({ _id: memo._id, cleanup: "link", "linking.mark": memo.linking?.mark ?? null }, { $set: { cleanup: null, linking: null } });
	return linked;
}

/** SetMemoAttachments replaced the memo's set: a link left pending by an earlier request is void. */
export async function dropPendingLinks(deps: MemosDeps, memoId: string): Promise<void> {
	await deps.store.memos.update({ _id: memoId, cleanup: "link" }, { $set: { cleanup: null, linking: null } });
}
