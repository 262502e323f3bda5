import type { Doc } from "../../shared/store/document-store.js";

/** An attachment removal written down before the removal starts (attachment-removals.ts). */
export interface RemovalDoc extends Doc {
	blobKey: string | null;
	size: number;
	/** When the removal was decided (epoch ms). */
	since: number;
}

export const ATTACHMENT_REMOVALS = "attachment_removals";
