import type { Caller } from "../../shared/caller.js";
import { alreadyExists, notFound, permissionDenied } from "../../shared/errors.js";
import { insertSequenced } from "../../shared/sequence.js";
import { DuplicateKeyError } from "../../shared/store/document-store.js";
import type { MemoAccessInfo } from "../memos/memos.contract.js";
import { sniffType, type StoredBytes } from "./attachment-bytes.js";
import type { AttachmentDoc } from "./attachment-doc.js";
import { DEFAULT_TYPE, typeFromFilename } from "./attachment-fields.js";
import type { AttachmentsDeps } from "./attachments-deps.js";
import { releaseClaim } from "./blob-claims.js";
import { beginTotalsChange, endTotalsChange } from "./stored-totals.js";

/** What the new attachment is made of, once its bytes (if any) are stored. */
export interface NewAttachment {
	id: string;
	creatorId: string;
	filename: string;
	/** Normalised type given by the client, or "" to derive it. */
	type: string;
	externalLink: string;
	stored: (StoredBytes & { key: string }) | null;
	memoId: string | null;
	motionMedia?: Record<string, unknown>;
	mediaMetadata?: Record<string, unknown>;
}

export async function assertIdFree(deps: AttachmentsDeps, id: string): Promise<void> {
	if ((await deps.store.attachments.count({ _id: id })) > 0) throw alreadyExists(`attachment "attachments/${id}" already exists`);
}

/** NOT_FOUND when the memo is gone, PERMISSION_DENIED unless the caller created it (contract 8.2). */
export async function checkOwnMemo(deps: AttachmentsDeps, memoId: string, caller: Caller): Promise<MemoAccessInfo> {
	const memo = (await deps.peers.memoInfo([memoId])).get(memoId);
	if (memo === undefined || memo.read === "NOT_FOUND") throw notFound(`memo "memos/${memoId}" not found`);
	if (memo.creatorId !== caller.id) throw permissionDenied(`only the creator of memo "memos/${memoId}" may attach files to it`);
	return memo;
}

/** Inserts the record (appended to its memo's set); ALREADY_EXISTS when the id is taken. */
export async function insertAttachment(deps: AttachmentsDeps, attachment: NewAttachment, now: number, memo: MemoAccessInfo | null): Promise<AttachmentDoc> {
	const { attachments } = deps.store;
	const { stored } = attachment;
	let type = attachment.type;
	if (type === "") type = typeFromFilename(attachment.filename);
	if (type === "" && stored !== null) type = await sniffType(stored.head);
	let memoPosition = 0;
	if (memo !== null) {
		const [lastLinked] = await attachments.find({ memoId: memo.id }, { sort: { memoPosition: -1 }, limit: 1 });
		memoPosition = (lastLinked?.memoPosition ?? -1) + 1;
	}
	const doc: AttachmentDoc = {
		_id: attachment.id,
		// Numbered by the insert.
		seq: 0,
		creatorId: attachment.creatorId,
		filename: attachment.filename,
		type: type === "" ? DEFAULT_TYPE : type,
		size: stored?.size ?? 0,
		externalLink: attachment.externalLink,
		sha256: stored?.sha256 ?? "",
		blobKey: stored?.key ?? null,
		memoId: memo?.id ?? null,
		memoPosition,
		spaceId: memo?.spaceId ?? null,
		memoSpaceReadable: memo?.spaceReadable ?? false,
		memoDeleted: false,
		createTime: now
	};
	if (attachment.motionMedia !== undefined) doc.motionMedia = attachment.motionMedia;
	if (attachment.mediaMetadata !== undefined) doc.mediaMetadata = attachment.mediaMetadata;
	await beginTotalsChange(deps.store.totals, deps.now());
	try {
		await insertSequenced(attachments, deps.store.nextSeq, seq => Object.assign(doc, { seq }));
	} catch (err) {
		// Any other failure may have written the record: its bytes and claim stay for the repair passes.
		if (!(err instanceof DuplicateKeyError)) throw err;
		// Certainly not written: counted out at once, the bytes go.
		await endTotalsChange(deps.store.totals, { count: 0, bytes: 0 });
		if (stored !== null) {
			await deps.blobs.delete(stored.key);
			await releaseClaim(deps, stored.key);
		}
		throw alreadyExists(`attachment "attachments/${attachment.id}" already exists`);
	}
	await endTotalsChange(deps.store.totals, { count: 1, bytes: doc.size });
	if (stored !== null) await releaseClaim(deps, stored.key);
	deps.countStoredBytes(doc.size);
	return doc;
}
