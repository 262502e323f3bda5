import type { Doc } from "../../shared/store/document-store.js";

/** A new blob claimed before its bytes are written, until its record is (blob-claims.ts); `_id` is the blob key. */
export interface BlobClaimDoc extends Doc {
	attachmentId: string;
	since: number;
}

export const BLOB_CLAIMS = "attachment_blob_claims";
