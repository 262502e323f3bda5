import type { Doc } from "../../shared/store/document-store.js";

/**
 * An attachment as the attachments service stores it (collection `attachments`). Times are
 * epoch milliseconds; `seq` is a creation sequence that breaks ties between equal sort keys
 * (contract 6.4). `creatorId` is the auth service's internal user id.
 */
export interface AttachmentDoc extends Doc {
	_id: string;
	seq: number;
	creatorId: string;
	filename: string;
	type: string;
	size: number;
	externalLink: string;
	/** Hex SHA-256 of the stored bytes (the strong ETag, contract 8.5); "" for external links. */
	sha256: string;
	/** Where the bytes are in the blob store; null for external links. */
	blobKey: string | null;
	/** The linked memo's id, or null when unlinked (contract 4.6). */
	memoId: string | null;
	/** Place in the memo's display order (contract 7.9). */
	memoPosition: number;
	/** The linked memo's space, kept here so filters and the space widening of 8.1 are one query. */
	spaceId: string | null;
	/** The linked memo is soft-deleted: the attachment is kept but neither listed nor served (contract 7.6). */
	memoDeleted: boolean;
	/** Members of `spaceId` other than the creator can read the linked memo (the widening of contract 8.1). */
	memoSpaceReadable?: boolean;
	createTime: number;
	motionMedia?: Record<string, unknown>;
	mediaMetadata?: Record<string, unknown>;
}

export const ATTACHMENTS = "attachments";
