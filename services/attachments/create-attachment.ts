import type { Readable } from "node:stream";
import type { Caller } from "../../shared/caller.js";
import { invalidArgument } from "../../shared/errors.js";
import { emptyBody, storeBytes } from "./attachment-bytes.js";
import type { AttachmentDoc } from "./attachment-doc.js";
import { assertIdFree, checkOwnMemo, insertAttachment, type NewAttachment } from "./attachment-records.js";
import type { AttachmentsDeps } from "./attachments-deps.js";
import { claimNewBlob } from "./blob-claims.js";
import type { CreateAttachmentInput } from "./create-input.js";

/** CreateAttachment (contract 8.2): the bytes, if any, come as `body`. */
export async function createAttachment(deps: AttachmentsDeps, input: CreateAttachmentInput, caller: Caller, body: Readable | null, now: number): Promise<AttachmentDoc> {
	const limit = await deps.uploadLimit();
	if (input.contentLength !== null && input.contentLength > limit) throw invalidArgument(`attachment is larger than the upload limit of ${limit} bytes`);
	const memo = input.memoId === null ? null : await checkOwnMemo(deps, input.memoId, caller);
	await assertIdFree(deps, input.id);
	let stored: NewAttachment["stored"] = null;
	if (input.externalLink === "") {
		const key = await claimNewBlob(deps, input.id);
		const source = input.contentLength !== null && body ? body : emptyBody();
		stored = { key, ...(await storeBytes(deps.blobs, key, source, { size: input.contentLength ?? 0 })) };
	}
	return insertAttachment(deps, { ...input, creatorId: caller.id, stored }, now, memo);
}
