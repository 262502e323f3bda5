import type { Context } from "moleculer";
import type { Caller } from "../../shared/caller.js";
import type { InstanceSettingsMethods } from "../../shared/settings/instance-settings.mixin.js";
import type { Collection } from "../../shared/store/document-store.js";
import type { MemoAccessInfo } from "../memos/memos.contract.js";
import type { StoredBytes } from "./attachment-bytes.js";
import type { AttachmentDoc } from "./attachment-doc.js";

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

/** The methods of the attachments service that its upload mixin relies on too. */
export interface AttachmentsHostMethods extends InstanceSettingsMethods {
	attachmentCollection(): Collection<AttachmentDoc>;
	nextSeq(): Promise<number>;
	uploadLimit(): Promise<number>;
	/** The memos service's view of these memos for the caller; deleted or missing memos are absent. */
	memoInfo(ctx: Context, memoIds: Iterable<string>): Promise<Map<string, MemoAccessInfo>>;
	/** NOT_FOUND when the memo is gone, PERMISSION_DENIED unless the caller created it (contract 8.2). */
	checkOwnMemo(ctx: Context, memoId: string, caller: Caller): Promise<MemoAccessInfo>;
	/** Whether the caller belongs to the space (one `spaces.spaceMembers` call). */
	isSpaceMember(ctx: Context, spaceId: string, caller: Caller): Promise<boolean>;
	/** Inserts the record (appended to its memo's set); ALREADY_EXISTS when the id is taken. */
	insertAttachment(attachment: NewAttachment, now: number, memo: MemoAccessInfo | null): Promise<AttachmentDoc>;
	/** Removes records and then their bytes. */
	removeAttachments(docs: AttachmentDoc[]): Promise<void>;
}
