import type { Caller } from "../../shared/caller.js";
import { invalidArgument } from "../../shared/errors.js";
import { parseName } from "../../shared/names.js";
import { assertCanWrite, attachmentNotFound } from "./attachment-access.js";
import type { AttachmentDoc } from "./attachment-doc.js";
import { removeAttachments } from "./attachment-removals.js";
import type { AttachmentsDeps } from "./attachments-deps.js";

const BATCH_DELETE_MAX = 100;

/** UpdateAttachment (contract 8.3): `filename` only. */
export async function renameAttachment(deps: AttachmentsDeps, id: string, filename: string, caller: Caller): Promise<AttachmentDoc> {
	const { attachments } = deps.store;
	assertCanWrite(await attachments.findOne({ _id: id }), id, caller);
	const updated = await attachments.findOneAndUpdate({ _id: id }, { $set: { filename } });
	if (updated === null) throw attachmentNotFound(id);
	return updated;
}

/** DeleteAttachment (contract 8.3): record and bytes. */
export async function deleteAttachment(deps: AttachmentsDeps, id: string, caller: Caller): Promise<void> {
	const doc = await deps.store.attachments.findOne({ _id: id });
	assertCanWrite(doc, id, caller);
	await removeAttachments(deps, [doc]);
}

/** BatchDeleteAttachments (contract 8.3): every name checked first, then all deleted. */
export async function batchDeleteAttachments(deps: AttachmentsDeps, names: unknown, caller: Caller): Promise<void> {
	if (!Array.isArray(names) || names.length < 1 || names.length > BATCH_DELETE_MAX) {
		throw invalidArgument(`names must list 1 to ${BATCH_DELETE_MAX} attachment names`);
	}
	const ids = [...new Set(names.map((name, i) => parseName("attachment", typeof name === "string" ? name : "", `names[${i}]`)))];
	const docs = await deps.store.attachments.find({ _id: { $in: ids } });
	const byId = new Map(docs.map(doc => [doc._id, doc]));
	for (const id of ids) if (!byId.has(id)) throw attachmentNotFound(id);
	for (const id of ids) assertCanWrite(byId.get(id) ?? null, id, caller);
	await removeAttachments(deps, docs);
}
