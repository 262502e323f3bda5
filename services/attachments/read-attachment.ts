import { finished, type Readable } from "node:stream";
import { BlobNotFoundError, type ByteRange } from "../../shared/blob/blob-store.js";
import type { Caller } from "../../shared/caller.js";
import { notFound } from "../../shared/errors.js";
import { transferHeapGrowth } from "../../shared/runtime/heap-growth.js";
import { assertCanRead, attachmentNotFound } from "./attachment-access.js";
import type { AttachmentDoc } from "./attachment-doc.js";
import type { FileAccess } from "./attachments.contract.js";
import type { AttachmentsDeps } from "./attachments-deps.js";

/** GetAttachment (contract 8.1). */
export async function getAttachment(deps: AttachmentsDeps, id: string, caller: Caller | null): Promise<AttachmentDoc> {
	const doc = await deps.store.attachments.findOne({ _id: id });
	const memo = doc?.memoId ? (await deps.peers.memoInfo([doc.memoId])).get(doc.memoId) : undefined;
	assertCanRead(doc, id, caller, memo);
	return doc;
}

/** For the file route: access (contract 8.5) and what the headers need. */
export async function fileInfo(deps: AttachmentsDeps, id: string, caller: Caller | null, shareToken: unknown): Promise<FileAccess> {
	const doc = await deps.store.attachments.findOne({ _id: id });
	// External links have no bytes here; a soft-deleted memo's attachments are not served.
	if (doc === null || doc.blobKey === null || doc.memoDeleted) throw attachmentNotFound(id);
	// A share token grants its memo's attachments to whoever holds it, and anything else it names is NOT_FOUND (contract 8.5).
	if (shareToken !== undefined) {
		const sharedMemoId = doc.memoId === null ? null : await deps.peers.sharedMemo(shareToken);
		if (sharedMemoId === null || sharedMemoId !== doc.memoId) throw notFound("share link not found");
		return { size: doc.size, sha256: doc.sha256, type: doc.type, filename: doc.filename, createTime: doc.createTime, publicRead: false };
	}
	const memo = doc.memoId === null ? undefined : (await deps.peers.memoInfo([doc.memoId])).get(doc.memoId);
	assertCanRead(doc, id, caller, memo);
	return { size: doc.size, sha256: doc.sha256, type: doc.type, filename: doc.filename, createTime: doc.createTime, publicRead: memo?.publicRead ?? false };
}

/** For the file route: the bytes, or one range of them, as a stream, with the heap's growth of a transfer until it is over. */
export async function fileStream(deps: AttachmentsDeps, id: string, range: ByteRange | undefined): Promise<Readable> {
	const doc = await deps.store.attachments.findOne({ _id: id });
	if (doc === null || doc.blobKey === null) throw attachmentNotFound(id);
	try {
		const bytes = await deps.blobs.get(doc.blobKey, range);
		finished(bytes, transferHeapGrowth());
		return bytes;
	} catch (err) {
		if (err instanceof BlobNotFoundError) throw attachmentNotFound(id);
		throw err;
	}
}
