import { nextSequence, SEQ_INDEX } from "../../shared/sequence.js";
import type { Collection, DocumentStore } from "../../shared/store/document-store.js";
import { ATTACHMENTS, type AttachmentDoc } from "./attachment-doc.js";
import { ATTACHMENT_REMOVALS, type RemovalDoc } from "./removal-doc.js";
import { BLOB_CLAIMS, type BlobClaimDoc } from "./blob-claim-doc.js";
import type { TotalsDoc } from "./stored-totals.js";

const SEQUENCES = "attachment_sequences";
const TOTALS = "attachment_totals";

/** The attachments service's collections: the records, their counters, removals under way and the creation counter. */
export interface AttachmentsStore {
	attachments: Collection<AttachmentDoc>;
	/** How many records and bytes are stored (stored-totals.ts). */
	totals: Collection<TotalsDoc>;
	/** Removals decided and not yet finished (attachment-removals.ts). */
	removals: Collection<RemovalDoc>;
	/** New blobs whose record is not yet written (blob-claims.ts). */
	claims: Collection<BlobClaimDoc>;
	/** The creation sequence that breaks ties between equal sort keys (contract 6.4). */
	nextSeq(): Promise<number>;
}

export function attachmentsStore(documents: DocumentStore): AttachmentsStore {
	return {
		attachments: documents.collection<AttachmentDoc>(ATTACHMENTS),
		totals: documents.collection<TotalsDoc>(TOTALS),
		removals: documents.collection<RemovalDoc>(ATTACHMENT_REMOVALS),
		claims: documents.collection<BlobClaimDoc>(BLOB_CLAIMS),
		nextSeq: () => nextSequence(documents, SEQUENCES, ATTACHMENTS)
	};
}

export async function ensureAttachmentIndexes(store: AttachmentsStore): Promise<void> {
	const { attachments } = store;
	// ListAttachments branches (space-widening.ts): the owner or the space first, then each sort
	// key with the sequence tie-break, descending unless the key is a time (contract 6.4): an
	// ascending filename, type or size keeps a descending sequence, an order of its own.
	for (const [key, directions] of [["createTime", [-1]], ["filename", [-1, 1]], ["type", [-1, 1]], ["size", [-1, 1]]] as const) {
		for (const direction of directions) {
			await attachments.ensureIndex({ fields: { creatorId: 1, memoDeleted: 1, [key]: direction, seq: -1 } });
			await attachments.ensureIndex({ fields: { spaceId: 1, memoDeleted: 1, memoSpaceReadable: 1, [key]: direction, seq: -1 } });
		}
	}
	// The tie-breaker of every page is handed out once (shared/sequence.ts, insertSequenced).
	await attachments.ensureIndex(SEQ_INDEX);
	// A memo's attachments in display order, ties by sequence (ListMemoAttachments, forMemos).
	await attachments.ensureIndex({ fields: { memoId: 1, memoPosition: 1, seq: 1 } });
	// The repair passes of removals and of new blobs' claims (attachment-removals.ts, blob-claims.ts).
	await store.removals.ensureIndex({ fields: { since: 1 } });
	await store.claims.ensureIndex({ fields: { since: 1 } });
}
