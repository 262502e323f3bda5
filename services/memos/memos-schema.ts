import type { UserStatsDeps } from "./user-stats.js";
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { RequestMeta } from "../../shared/caller.js";
import type { InstanceSettingsMethods } from "../../shared/settings/instance-settings.mixin.js";
import type { Collection } from "../../shared/store/document-store.js";
import type { CreateMemoParams } from "./memo-create.js";
import type { MemoDoc } from "./memo-doc.js";
import type { MemoSpacesMethods } from "./memo-spaces.mixin.js";

/**
 * The memos service's schema types, apart from the schema so that the action fragments
 * (comments.ts, relations.ts, …) and helpers typed through `this` do not import the service.
 */

export interface MemosSettings extends ServiceSettingSchema {
	/** How often soft-deleted memos past their retention are looked for. */
	purgeIntervalMs: number;
}

export interface MemosMethods extends InstanceSettingsMethods, MemoSpacesMethods {
	memoCollection(): Collection<MemoDoc>;
	/** Epoch ms; a method so tests can replace the clock the purge runs on. */
	clockNow(): number;
	nextSeq(): Promise<number>;
	contentLengthLimit(): Promise<number>;
	/** `users/{username}` per user id, in one `auth.lookupUsers` call. */
	creatorNames(ctx: Context, creatorIds: Iterable<string>): Promise<Map<string, string>>;
	/** The attachments of these memos in display order, in one `attachments.forMemos` call. */
	attachmentsOf(ctx: Context, memoIds: string[]): Promise<Record<string, Record<string, unknown>[]>>;
	purgeExpiredMemos(now: number): Promise<number>;
	/** What GetUserStats and ListAllUserStats need for this request's caller (user-stats.ts). */
	userStatsDeps(ctx: Context<unknown, RequestMeta>): Promise<UserStatsDeps>;
	/** Memo JSON for a response: creators, attachments, relations and reactions in a fixed number of calls (memo-responses.ts). */
	memoResponses(ctx: Context<unknown, RequestMeta>, docs: MemoDoc[], options?: MemoResponseOptions): Promise<Record<string, unknown>[]>;
	/** CreateMemo, and CreateMemoComment with `parentId` (contract 7.3, 7.7). */
	insertMemo(ctx: Context<unknown, RequestMeta>, params: CreateMemoParams, parentId: string | null): Promise<Record<string, unknown>>;
}

export interface MemoResponseOptions {
	/** ListMemos with showDeleted (contract 4.1). */
	withDeleteTime?: boolean;
	/** GetSharedMemo: `parent` omitted, `relations` empty (contract 7.11). */
	shared?: boolean;
	/** The memos' attachments when the caller already has them (CreateMemo): no `attachments.forMemos` call. */
	attachments?: Record<string, Record<string, unknown>[]>;
}

export interface MemosVars {
	purgeTimer?: NodeJS.Timeout;
}

export type MemosThis = Service<MemosSettings> & MemosVars & MemosMethods;
/** Action objects kept in their own modules (comments.ts, relations.ts, …) and spread into `actions`. */
export type MemosActions = NonNullable<ServiceSchema<MemosSettings, MemosMethods, MemosVars>["actions"]>;
