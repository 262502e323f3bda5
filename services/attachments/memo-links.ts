import type { Caller } from "../../shared/caller.js";
import { failedPrecondition, invalidArgument, notFound, permissionDenied, ServiceError } from "../../shared/errors.js";
import { formatName, parseName } from "../../shared/names.js";
import { fieldOf, optionalMessageOf, stringOf } from "../../shared/request-message.js";
import { attachmentNotFound } from "./attachment-access.js";
import type { AttachmentDoc } from "./attachment-doc.js";
import { toAttachmentJson } from "./attachment-json.js";
import type { LinkTarget } from "./attachments.contract.js";
import type { AttachmentsDeps } from "./attachments-deps.js";

/**
 * SetMemoAttachments' body (contract 7.9): only each `name` is read; the list order is the
 * display order and duplicates collapse to their first place.
 */
export function parseMemoAttachmentNames(raw: unknown): string[] {
	if (raw === undefined || raw === null) return [];
	if (!Array.isArray(raw)) throw invalidArgument("attachments must be a list");
	const ids: string[] = [];
	for (const [i, item] of raw.entries()) {
		const field = `attachments[${i}]`;
		const name = stringOf(fieldOf(optionalMessageOf(item, field) ?? {}, "name"), `${field}.name`);
		const id = parseName("attachment", name, `${field}.name`);
		if (!ids.includes(id)) ids.push(id);
	}
	return ids;
}

/**
 * The rules of 7.9, checked before anything changes: each attachment exists and belongs to the
 * memo's creator (else NOT_FOUND), unless already linked to this memo; one linked to another
 * memo is FAILED_PRECONDITION.
 */
async function checkLinks(deps: AttachmentsDeps, target: LinkTarget, ids: readonly string[]): Promise<void> {
	const docs = new Map((await deps.store.attachments.find({ _id: { $in: [...ids] } })).map(doc => [doc._id, doc]));
	for (const id of ids) {
		const doc = docs.get(id);
		if (doc?.memoId === target.id) continue;
		if (doc === undefined || doc.creatorId !== target.creatorId) throw attachmentNotFound(id);
		if (doc.memoId !== null) throw failedPrecondition(`attachment "attachments/${id}" is linked to another memo`);
	}
}

/**
 * Makes `ids` (checked) the memo's set in this order; the others are unlinked, not deleted. An
 * attachment linked elsewhere since the check is left where it is.
 * Not atomic (issue 21), made safe by order and idempotence, with no repair pass: every step
 * leaves each attachment either unlinked (kept, its creator's) or linked to this memo, a set
 * readers may show, and running the whole again (a retried SetMemoAttachments) completes it.
 */
async function replaceLinks(deps: AttachmentsDeps, target: LinkTarget, ids: readonly string[]): Promise<void> {
	const unlinked = { memoId: null, spaceId: null, memoSpaceReadable: false, memoPosition: 0, memoDeleted: false };
	await deps.store.attachments.update({ memoId: target.id, _id: { $nin: [...ids] } }, { $set: unlinked }, { multi: true });
	for (const [position, id] of ids.entries()) {
		const linked = { memoId: target.id, spaceId: target.spaceId, memoSpaceReadable: target.spaceReadable, memoPosition: position, memoDeleted: false };
		await deps.store.attachments.update({ _id: id, $or: [{ memoId: null }, { memoId: target.id }] }, { $set: linked });
	}
}

/**
 * SetMemoAttachments (contract 7.9): replaces the memo's set. The memo's creator or an instance
 * ADMIN, an ADMIN only on a memo the ADMIN can read: otherwise the read's answer (3.1).
 */
export async function setMemoAttachments(deps: AttachmentsDeps, memoId: string, ids: readonly string[], caller: Caller): Promise<void> {
	const memo = (await deps.peers.memoInfo([memoId])).get(memoId);
	if (memo === undefined) throw notFound(`memo "memos/${memoId}" not found`);
	if (caller.id !== memo.creatorId) {
		if (caller.role !== "ADMIN") throw permissionDenied(`only the creator or an admin may set the attachments of memo "memos/${memoId}"`);
		if (memo.read !== "OK") throw new ServiceError(memo.read, `no read access to memo "memos/${memoId}"`);
	}
	await checkLinks(deps, memo, ids);
	await replaceLinks(deps, memo, ids);
}

/**
 * The `attachments` of CreateMemo and UpdateMemo (contract 7.3, 7.5) under the rules of
 * SetMemoAttachments: checked first (`apply` false), which answers the names as checked (in
 * display order, duplicates dropped) for the memo's mark (services/memos/memo-attachment-links.ts);
 * applied once the memo is written (`apply` true), which answers the memo's attachments in
 * display order so that CreateMemo needs no third call. Applying the same names again changes nothing.
 */
export async function linkForMemo(deps: AttachmentsDeps, target: LinkTarget, ids: readonly string[], apply: boolean): Promise<Record<string, unknown>[]> {
	if (!apply) {
		await checkLinks(deps, target, ids);
		return ids.map(id => ({ name: formatName("attachment", id) }));
	}
	await replaceLinks(deps, target, ids);
	const linked = await deps.store.attachments.find({ memoId: target.id }, { sort: { memoPosition: 1, seq: 1 } });
	return linked.map(toAttachmentJson);
}

/** The attachments of memos in display order, by memo id (one call per request, contract 4.1). */
export async function attachmentsOfMemos(deps: AttachmentsDeps, memoIds: readonly string[]): Promise<Map<string, AttachmentDoc[]>> {
	const result = new Map<string, AttachmentDoc[]>();
	const ids = [...new Set(memoIds)];
	if (ids.length === 0) return result;
	const docs = await deps.store.attachments.find({ memoId: { $in: ids } }, { sort: { memoId: 1, memoPosition: 1, seq: 1 } });
	for (const doc of docs) {
		const memoId = doc.memoId as string;
		const list = result.get(memoId) ?? [];
		list.push(doc);
		result.set(memoId, list);
	}
	return result;
}
