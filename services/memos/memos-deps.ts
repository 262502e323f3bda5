import type { Caller } from "../../shared/caller.js";
import type { LinkTarget } from "../attachments/attachments.contract.js";
import type { MemoChangeRecord, UserRef } from "../auth/auth.contract.js";
import type { LinkMetadataDeps } from "./link-metadata/link-metadata.js";
import type { AnnounceChange } from "./memo-events.js";
import type { MemoDoc, Visibility } from "./memo-doc.js";
import type { SpaceRoles } from "./memo-spaces.js";
import type { MemosStore } from "./memos-store.js";

/** Attachment messages per memo id, as the attachments service answers them. */
export type AttachmentsByMemo = Record<string, Record<string, unknown>[]>;

/** The other services, as the memo rules need them; bound to the request (or the broker) they serve. */
export interface MemosPeers {
	/** The caller's spaces and roles (none for an anonymous caller), cached briefly per user. */
	spacesOf(caller: Caller | null): Promise<SpaceRoles>;
	/** Whether the space exists, and the roles in it of those of `userIds` who are members. */
	spaceMembers(spaceId: string, userIds: string[]): Promise<{ exists: boolean; roles: Record<string, string> }>;
	/**
	 * Those of `userIds` who are members of each of `spaceIds`, by space, in one call; null while
	 * the spaces nodes running predate the call (a rolling deploy): no membership is known then.
	 */
	membersOfSpaces(spaceIds: string[], userIds: string[]): Promise<Record<string, string[]> | null>;
	/** `users/{username}` per user id, in one call. */
	userNames(ids: Iterable<string>): Promise<Map<string, string>>;
	/** The visibility of the user's new memos that name none (user setting GENERAL, contract 16). */
	defaultVisibility(userId: string): Promise<Visibility>;
	/** User ids per username, in one call. */
	userIds(usernames: string[]): Promise<Map<string, string>>;
	/** The users of these usernames, whatever their state, in one call; unknown ones are left out. */
	users(usernames: string[]): Promise<UserRef[]>;
	/**
	 * Checks (`apply` false: the names as checked) or applies (the memo's attachments) the
	 * `attachments` of CreateMemo and UpdateMemo (contract 7.3, 7.5, 7.9).
	 */
	linkAttachments(memo: LinkTarget, attachments: unknown, apply: boolean): Promise<Record<string, unknown>[]>;
	/** The attachments of these memos in display order, in one call. */
	attachmentsOf(memoIds: string[]): Promise<AttachmentsByMemo>;
	/** Purged memos take their attachments and bytes along (contract 7.6). */
	deleteAttachments(memoIds: string[]): Promise<void>;
	/** Soft-deleted memos' attachments are kept but neither listed nor served (contract 7.6). */
	hideAttachments(memoIds: string[]): Promise<void>;
	/** A memo's space, or its readability in the space, changed (contract 7.5, 8.1). */
	attachmentsFollow(memoId: string, spaceId: string | null, spaceReadable: boolean): Promise<void>;
	/** The memos of a deleted space left it (contract 9). */
	attachmentsLeaveSpace(spaceId: string): Promise<void>;
	/** Records stored memo changes as webhook deliveries (contract 17; memo-outbox.ts). */
	recordMemoChanges(changes: MemoChangeRecord[]): Promise<void>;
}

/** What the memo rules need, handed to the plain modules by the service (and by tests). */
export interface MemosDeps {
	store: MemosStore;
	peers: MemosPeers;
	/** The MEMO_RELATED setting's content length limit in bytes (contract 4.12). */
	contentLengthLimit(): Promise<number>;
	/** Counts a created memo or comment (contract 13). */
	countCreated(kind: "memo" | "comment"): void;
	/** GetLinkMetadata's cache and address rule (contract 7.12). */
	links: LinkMetadataDeps;
	/** Broadcasts a change once it is stored (contract 17). */
	announce: AnnounceChange;
	/** A step after a stored change failed and is left to a repair pass (notify-memo.ts): logged as a warning. */
	leftForRepair(err: unknown, what: string): void;
	/** A condition worth one warning per process (older peers in a rolling deploy): logged the first time `key` comes. */
	warnOnce(key: string, message: string): void;
	/**
	 * Relays the outbox entries of `docs`, rendered as `memos`, right after their change
	 * (memo-outbox.ts); a failure is logged and the entries wait for the relay pass.
	 */
	relayNow(docs: readonly MemoDoc[], memos: readonly Record<string, unknown>[]): Promise<void>;
}
