import { SETTLE_MS } from "../../shared/store/settle-time.js";
import { newBlobKey } from "./attachment-bytes.js";
import type { AttachmentsDeps } from "./attachments-deps.js";

/**
 * A new attachment's bytes are stored before its record is written, so a crash between the two
 * would leave bytes nothing refers to (issue 21). Each new blob is claimed first (blob-claim-doc.ts:
 * its key, the attachment's id, since when); the claim is released
 * once the record holding the key is written, or with the bytes when the insert certainly
 * failed. A failure that may have written the record (an ambiguous write) keeps both: the
 * repair pass (`settleClaims`, at start-up and every sweep) looks at claims older than
 * SETTLE_MS, keeps the bytes a record holds and deletes the others.
 */
/** Claims settled per repair query. */
const REPAIR_BATCH = 100;

/** A fresh blob key for attachment `attachmentId`'s bytes, claimed before anything is written to it. */
export async function claimNewBlob(deps: AttachmentsDeps, attachmentId: string): Promise<string> {
	const key = newBlobKey();
	await deps.store.claims.insert({ _id: key, attachmentId, since: deps.now() });
	return key;
}

/** The record holding the key is written (or the bytes are gone): the claim is done with. */
export async function releaseClaim(deps: AttachmentsDeps, key: string): Promise<void> {
	await deps.store.claims.remove({ _id: key });
}

/** The repair pass: settles the claims older than `now - SETTLE_MS`. Returns how many bytes it deleted. */
export async function settleClaims(deps: AttachmentsDeps, now: number): Promise<number> {
	let deleted = 0;
	for (;;) {
		const claims = await deps.store.claims.find({ since: { $lt: now - SETTLE_MS } }, { limit: REPAIR_BATCH });
		if (claims.length === 0) return deleted;
		for (const claim of claims) {
			if ((await deps.store.attachments.count({ _id: claim.attachmentId, blobKey: claim._id })) === 0) {
				await deps.blobs.delete(claim._id);
				deleted += 1;
			}
			await releaseClaim(deps, claim._id);
		}
	}
}
