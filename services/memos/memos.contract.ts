import { defineAction, defineApiAction, defineEvent } from "../../shared/contract.js";
import type { UserDataParams } from "../auth/auth.contract.js";

/** The memos service's published boundary: what other services and the gateway may use of it. */

/** A memo body's size depends on the content limit (the gateway's body limits, contract 19). */
export { contentLimitOf } from "./memo-fields.js";

/** What another service needs to apply a memo's rules to things it owns (attachments, contract 3.3 and 8.1). */
export interface MemoAccessInfo {
	id: string;
	creatorId: string;
	spaceId: string | null;
	/** The answer of the read rule (1.10) for the caller: OK, NOT_FOUND, UNAUTHENTICATED or PERMISSION_DENIED. */
	read: "OK" | "NOT_FOUND" | "UNAUTHENTICATED" | "PERMISSION_DENIED";
	/** An anonymous caller could read it (on a public instance). */
	publicRead: boolean;
	/** Members of its space other than the creator can read it (memo-spaces.ts). */
	spaceReadable: boolean;
}

/** A change event as the memos service broadcast it, for `changeReaders`. */
export interface ChangeToCheck {
	/** Its event name (`memo.deleted`…). */
	event: string;
	change: MemoChangeEvent;
}

/** Who may read every memo a change names, now. */
export interface ChangeReaders {
	/** Every signed-in user may. */
	everySignedIn: boolean;
	/** Else those of the users asked about who may. */
	userIds: string[];
}

export const memosActions = {
	listMemos: defineApiAction("memos.listMemos"),
	getUserStats: defineApiAction("memos.getUserStats"),
	listAllUserStats: defineApiAction("memos.listAllUserStats"),
	listShortcuts: defineApiAction("memos.listShortcuts"),
	getShortcut: defineApiAction("memos.getShortcut"),
	createShortcut: defineApiAction("memos.createShortcut"),
	updateShortcut: defineApiAction("memos.updateShortcut"),
	deleteShortcut: defineApiAction("memos.deleteShortcut"),
	listUserNotifications: defineApiAction("memos.listUserNotifications"),
	updateUserNotification: defineApiAction("memos.updateUserNotification"),
	deleteUserNotification: defineApiAction("memos.deleteUserNotification"),
	createMemo: defineApiAction("memos.createMemo"),
	getMemo: defineApiAction("memos.getMemo"),
	updateMemo: defineApiAction("memos.updateMemo"),
	deleteMemo: defineApiAction("memos.deleteMemo"),
	getLinkMetadata: defineApiAction("memos.getLinkMetadata"),
	batchGetLinkMetadata: defineApiAction("memos.batchGetLinkMetadata"),
	createMemoComment: defineApiAction("memos.createMemoComment"),
	listMemoComments: defineApiAction("memos.listMemoComments"),
	setMemoRelations: defineApiAction("memos.setMemoRelations"),
	listMemoRelations: defineApiAction("memos.listMemoRelations"),
	upsertMemoReaction: defineApiAction("memos.upsertMemoReaction"),
	listMemoReactions: defineApiAction("memos.listMemoReactions"),
	deleteMemoReaction: defineApiAction("memos.deleteMemoReaction"),
	createMemoShare: defineApiAction("memos.createMemoShare"),
	listMemoShares: defineApiAction("memos.listMemoShares"),
	deleteMemoShare: defineApiAction("memos.deleteMemoShare"),
	getSharedMemo: defineApiAction("memos.getSharedMemo"),
	/** The memo a share token opens, or null when the token is unknown, expired or its memo gone. */
	resolveShare: defineAction<{ token: unknown }, { memoId: string } | null>("memos.resolveShare"),
	/** The memos of `memoIds` that exist and are not deleted, with the caller's read right. */
	accessInfo: defineAction<{ memoIds: string[] }, MemoAccessInfo[]>("memos.accessInfo"),
	/**
	 * For the gateway's live stream (contract 17): per change, in order, who of `userIds` may read
	 * every memo it names at the time of the call (a deleted memo as it was just before).
	 */
	changeReaders: defineAction<{ changes: ChangeToCheck[]; userIds: string[] }, ChangeReaders[]>("memos.changeReaders"),
	/** Moves a memo's update time after SetMemoAttachments replaced its attachments (voiding links a crashed request left pending). */
	touch: defineAction<{ memoId: string; time: number }, void>("memos.touch"),
	/** Memos (not deleted) still placed in a space. */
	spaceMemoCount: defineAction<{ spaceId: string }, number>("memos.spaceMemoCount"),
	/** Every memo of a deleted space loses it. */
	detachSpace: defineAction<{ spaceId: string }, void>("memos.detachSpace"),
	deleteUserData: defineAction<UserDataParams, void>("memos.deleteUserData"),
	/** The memos counter of InstanceStats (contract 4.11), for the instance service. */
	stats: defineAction<undefined, { memoCount: number }>("memos.stats")
} as const;

/**
 * A change to a memo, a comment or a reaction, broadcast by the memos service after it is
 * stored (contract 17). Ids only, never content: a consumer that shows anything reads the memo
 * through the memos service, under the read rule of its reader. Users are named by their
 * internal id (`users/{id}`, stable across renames; `authActions.lookupUsers` resolves them).
 */
export interface MemoChangeEvent {
	/** `memos/{id}`: the memo changed; the new comment for `memo.comment.created`; the reacted memo for reactions. */
	memo: string;
	/** `users/{id}`: the creator of `memo`. */
	creator: string;
	/** The space of `memo`, or null. */
	spaceId: string | null;
	/** `memos/{id}`: the memo `memo` comments on, when `memo` is a comment. */
	parent?: string;
	/** `users/{id}`: who made the change; "" when no user's request made it (an internal call without one). */
	actor: string;
	/** When the change was made, RFC 3339. */
	at: string;
}

/**
 * Every event the memos service broadcasts (contract 17), to every instance of every subscriber
 * (moleculer events are fire-and-forget: a consumer that must not miss one keeps its own record).
 * A new comment is `memo.comment.created` only, never `memo.created` too.
 */
export const memoEvents = {
	created: defineEvent<MemoChangeEvent>("memo.created"),
	updated: defineEvent<MemoChangeEvent>("memo.updated"),
	deleted: defineEvent<MemoChangeEvent>("memo.deleted"),
	commentCreated: defineEvent<MemoChangeEvent>("memo.comment.created"),
	reactionUpserted: defineEvent<MemoChangeEvent>("memo.reaction.upserted"),
	reactionDeleted: defineEvent<MemoChangeEvent>("memo.reaction.deleted"),
	/** Every change above, for handlers (`ctx.eventName` tells which). */
	changed: defineEvent<MemoChangeEvent>("memo.**")
} as const;
