import type { Caller } from "../../shared/caller.js";
import { defineAction, defineApiAction, defineEvent, type ApiAnswer, type ApiParams } from "../../shared/contract.js";
import { PAGE_SIZE_MAX } from "../../shared/paging/page-token.js";

/** The auth service's published boundary: what other services and the gateway may use of it. */

/** A personal access token as `auth.pat.deleted` names it (the gateway ends live streams opened with it). */
export { hashPat } from "./pat-hash.js";

/** What other services need of a user. */
export interface UserRef {
	id: string;
	username: string;
	role: "ADMIN" | "USER";
	state: "NORMAL" | "ARCHIVED";
}

export interface SetupState {
	userCount: number;
	/** The earliest-created ADMIN as a User message, or null. */
	admin: Record<string, unknown> | null;
}

/** An avatar image stored in the user record; the bytes may arrive as a plain Uint8Array from another node. */
export interface AvatarImage {
	/** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
	type: string;
	bytes: Uint8Array;
}

/** Longer strings are no token of ours; refused before any parsing. */
export const ACCESS_TOKEN_MAX_LENGTH = 2048;

/** BatchGetUsers answers at most this many usernames per call (contract 16). */
export const BATCH_GET_USERS_MAX = 100;

/** `auth.userMessages` answers at most this many ids per call: a page of notifications at its largest. */
export const USER_MESSAGES_MAX = PAGE_SIZE_MAX;

/** Who to look up: internal ids and/or usernames. */
export interface LookupUsersParams {
	ids?: string[];
	usernames?: string[];
}

/** The user data a service removes in `<service>.deleteUserData` (contract 2.4). */
export interface UserDataParams {
	userId: string;
}

/**
 * A stored change of a memo, as the memos service relays it from its outbox to the webhooks
 * (contract 17): what the payload needs, captured when the change was made.
 */
export interface MemoChangeRecord {
	/** Unique per change; recording it again adds nothing. */
	changeId: string;
	event: "memo.created" | "memo.updated" | "memo.deleted" | "memo.comment.created";
	/** Epoch ms of the change. */
	time: number;
	/** The user whose webhooks receive the change: the memo's creator; for memo.comment.created, the commented memo's (as upstream). */
	recipientId: string;
	/** `users/{username}` of the memo's creator. */
	creator: string;
	/** The Memo message (contract 4.1) as the change left it. */
	memo: Record<string, unknown>;
}

export const authActions = {
	/** Users by internal id or by username (one call per request, never one per item); unknown ones are left out. */
	lookupUsers: defineAction<LookupUsersParams, UserRef[]>("auth.lookupUsers"),
	/**
	 * The User message of each of these users by internal id, whatever their state (an archived
	 * user included, as upstream shows a notification's sender), as the caller of the request
	 * sees it (`email` for the user themself and admins); unknown ids are left out. One call per page.
	 */
	userMessages: defineAction<{ ids: string[] }, Record<string, Record<string, unknown>>>("auth.userMessages"),
	stats: defineAction<undefined, { userCount: number }>("auth.stats"),
	setupState: defineAction<undefined, SetupState>("auth.setupState"),
	verifyAccessToken: defineAction<{ token: string }, Caller>("auth.verifyAccessToken"),
	callerOfRefreshCookie: defineAction<{ cookie: string }, Caller | null>("auth.callerOfRefreshCookie"),
	userAvatar: defineAction<{ username: string }, AvatarImage>("auth.userAvatar"),
	signIn: defineApiAction("auth.signIn"),
	refreshToken: defineApiAction("auth.refreshToken"),
	signOut: defineApiAction("auth.signOut"),
	getCurrentUser: defineAction<ApiParams | undefined, ApiAnswer & { user?: { email?: unknown } }>("auth.getCurrentUser"),
	createUser: defineApiAction("auth.createUser"),
	getUser: defineApiAction("auth.getUser"),
	listUsers: defineApiAction("auth.listUsers"),
	updateUser: defineApiAction("auth.updateUser"),
	deleteUser: defineApiAction("auth.deleteUser"),
	listIdentityProviders: defineAction<ApiParams | undefined, ApiAnswer & { identityProviders?: unknown[] }>("auth.listIdentityProviders"),
	getIdentityProvider: defineApiAction("auth.getIdentityProvider"),
	createIdentityProvider: defineApiAction("auth.createIdentityProvider"),
	updateIdentityProvider: defineApiAction("auth.updateIdentityProvider"),
	deleteIdentityProvider: defineApiAction("auth.deleteIdentityProvider"),
	listPersonalAccessTokens: defineApiAction("auth.listPersonalAccessTokens"),
	createPersonalAccessToken: defineApiAction("auth.createPersonalAccessToken"),
	deletePersonalAccessToken: defineApiAction("auth.deletePersonalAccessToken"),
	batchGetUsers: defineApiAction("auth.batchGetUsers"),
	listLinkedIdentities: defineApiAction("auth.listLinkedIdentities"),
	createLinkedIdentity: defineApiAction("auth.createLinkedIdentity"),
	getLinkedIdentity: defineApiAction("auth.getLinkedIdentity"),
	deleteLinkedIdentity: defineApiAction("auth.deleteLinkedIdentity"),
	listUserSettings: defineApiAction("auth.listUserSettings"),
	getUserSetting: defineApiAction("auth.getUserSetting"),
	updateUserSetting: defineApiAction("auth.updateUserSetting"),
	/** GENERAL `memoVisibility` of a user: the visibility of their new memos when they name none (contract 16). */
	defaultMemoVisibility: defineAction<{ userId: string }, "PRIVATE" | "PROTECTED" | "PUBLIC">("auth.defaultMemoVisibility"),
	listUserWebhooks: defineApiAction("auth.listUserWebhooks"),
	createUserWebhook: defineApiAction("auth.createUserWebhook"),
	updateUserWebhook: defineApiAction("auth.updateUserWebhook"),
	deleteUserWebhook: defineApiAction("auth.deleteUserWebhook"),
	getUserWebhookSigningSecret: defineApiAction("auth.getUserWebhookSigningSecret"),
	/** Records the deliveries of stored memo changes to their creators' webhooks; idempotent per change (contract 17). */
	recordMemoChanges: defineAction<{ changes: MemoChangeRecord[] }, { recorded: number }>("auth.recordMemoChanges")
} as const;

export const authEvents = {
	/**
	 * Broadcast when a user is created, changed or deleted: cached views of users drop their copy
	 * (verifiers, and the instance profile's setup state, which shows the first admin).
	 */
	userChanged: defineEvent<{ id: string }>("auth.user.changed"),
	/** Broadcast when a personal access token is deleted: every auth node drops its cached copy (contract 16: within 3 s). */
	patDeleted: defineEvent<{ tokenHash: string }>("auth.pat.deleted"),
	/** Broadcast when sessions (refresh families) are revoked: every auth node refuses their access tokens from then on (contract 19: within 3 s). */
	sessionsRevoked: defineEvent<{ familyIds: string[] }>("auth.sessions.revoked"),
	/** Broadcast when webhook deliveries were recorded: delivery workers look for due work now rather than at their next poll. */
	webhookDeliveriesRecorded: defineEvent<{ count: number }>("auth.webhook.deliveries.recorded")
} as const;
