import type { BlobStore } from "../../shared/blob/blob-store.js";
import type { MemoAccessInfo } from "../memos/memos.contract.js";
import type { AttachmentsStore } from "./attachments-store.js";
import type { UploadSessions } from "./upload/upload-sessions.js";

/** The other services, as the attachment rules need them; bound to the request they serve. */
export interface AttachmentsPeers {
	/** The memos service's view of these memos for the caller; deleted or missing memos are absent. */
	memoInfo(memoIds: Iterable<string>): Promise<Map<string, MemoAccessInfo>>;
	/** The memo a share token grants, or null. */
	sharedMemo(token: unknown): Promise<string | null>;
	/** The memo's update time moves (its attachments changed). */
	touchMemo(memoId: string, time: number): Promise<void>;
	isSpaceMember(spaceId: string, userId: string): Promise<boolean>;
}

/** What the attachment rules need, handed to the plain modules by the service (and by tests). */
export interface AttachmentsDeps {
	store: AttachmentsStore;
	blobs: BlobStore;
	peers: AttachmentsPeers;
	/** The STORAGE setting's upload limit in bytes (contract 4.12). */
	uploadLimit(): Promise<number>;
	/** This node's chunked upload sessions (contract 8.4). */
	uploads: UploadSessions;
	nodeID: string;
	/** Epoch milliseconds; tests replace it to step past the upload inactivity time-out. */
	now(): number;
	/** Adds to the stored attachment bytes counter (contract 13). */
	countStoredBytes(bytes: number): void;
	/** Publishes the open sessions gauge after sessions opened or closed. */
	reportOpenUploads(): void;
}
