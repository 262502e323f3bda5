import { defineAction, defineApiAction } from "../../shared/contract.js";
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

export const memosActions = {
	listMemos: defineApiAction("memos.listMemos"),
	getUserStats: defineApiAction("memos.getUserStats"),
	listAllUserStats: defineApiAction("memos.listAllUserStats"),
	listShortcuts: defineApiAction("memos.listShortcuts"),
	getShortcut: defineApiAction("memos.getShortcut"),
	createShortcut: defineApiAction("memos.createShortcut"),
	updateShortcut: defineApiAction("memos.updateShortcut"),
	deleteShortcut: defineApiAction("memos.deleteShortcut"),
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
	/** Moves a memo's update time, as when its attachments change. */
	touch: defineAction<{ memoId: string; time: number }, void>("memos.touch"),
	/** Memos (not deleted) still placed in a space. */
	spaceMemoCount: defineAction<{ spaceId: string }, number>("memos.spaceMemoCount"),
	/** Every memo of a deleted space loses it. */
	detachSpace: defineAction<{ spaceId: string }, void>("memos.detachSpace"),
	deleteUserData: defineAction<UserDataParams, void>("memos.deleteUserData"),
	/** The memos counter of InstanceStats (contract 4.11), for the instance service. */
	stats: defineAction<undefined, { memoCount: number }>("memos.stats")
} as const;
