import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { BoundedCache } from "../../shared/cache/bounded-cache.js";
import { invalidateOn } from "../../shared/cache/invalidate-on.js";
import { signedIn, type Caller, type RequestMeta } from "../../shared/caller.js";
import { unauthenticated, unavailable } from "../../shared/errors.js";
import { broadcast, call } from "../../shared/contract.js";
import { toTimestamp } from "../../shared/proto-json.js";
import { clearRefreshCookie, setRefreshCookie, type CookieMeta } from "../../shared/refresh-cookie.js";
import { documentsOf, resourcesOf } from "../../shared/runtime/resources.js";
import { InstanceSettingsMixin, type InstanceSettingsMethods } from "../../shared/settings/instance-settings.mixin.js";
import type { Collection, Doc } from "../../shared/store/document-store.js";
import { issueAccessToken, verifiedTokensCache, verifyAccessToken, type AccessTokenClaims, type VerifiedTokens } from "./access-token.js";
import { activeCaller, activeUsersCache } from "./active-users.js";
import { ensureAuthIndexes } from "./auth-indexes.js";
import { authEvents, USER_MESSAGES_MAX, type AvatarImage, type SetupState, type UserRef } from "./auth.contract.js";
import type { AuthDeps, GeneralSetting } from "./auth-deps.js";
import { createUser, type CreateUserParams } from "./create-user.js";
import { USER_DATA_CLEANUP_ACTIONS, deleteUser } from "./delete-user.js";
import { getUser } from "./get-user.js";
import {
	createIdentityProvider,
	deleteIdentityProvider,
	getIdentityProvider,
	listIdentityProviders,
	toIdpJson,
	updateIdentityProvider,
	type CreateIdpParams,
	type UpdateIdpParams
} from "./identity-providers.js";
import { IDENTITY_PROVIDERS, USER_LINKS, type IdpDoc, type UserLinkDoc } from "./idp-doc.js";
import { isLiveSession, liveSessionsCache, type LiveSessions } from "./live-sessions.js";
import { patCache, userOfPat, type PatCache } from "./pat-verifier.js";
import { batchGetUsers } from "./batch-get-users.js";
import { USER_SETTINGS, defaultMemoVisibility, getUserSetting, listUserSettings, updateUserSetting, type UpdateUserSettingParams, type UserSettingDoc } from "./user-settings.js";
import { PERSONAL_ACCESS_TOKENS, createPat, deletePat, isPatShaped, listPats, type CreatePatParams, type ListPatsParams, type PatDoc } from "./personal-access-tokens.js";
import { REFRESH_TOKENS, familyOf, revokeFamily, rotate, startFamily, userOfLiveToken, type RefreshTokenDoc } from "./refresh-tokens.js";
import { SignInLocked, signIn, type SignInParams } from "./sign-in.js";
import { SIGN_IN_ATTEMPTS, type SignInAttemptsDoc } from "./sign-in-attempts.js";
import { SSO_TIMEOUT_MS } from "./sso.js";
import { SECRETS, loadSigningKey, type SecretDoc } from "./token-secret.js";
import { avatarImage } from "./user-avatar.js";
import { USERS, type UserDoc } from "./user-doc.js";
import { toUserJson } from "./user-json.js";
import { createLinkedIdentity, deleteLinkedIdentity, getLinkedIdentity, listLinkedIdentities } from "./linked-identities.js";
import type { JsonMessage } from "../../shared/request-message.js";
import { listUsers, type ListUsersParams } from "./list-users.js";
import { updateUser, type UpdateUserParams } from "./update-user.js";
import { mayReadEmail } from "./user-access.js";
import { UserWebhooksMixin } from "./webhooks/user-webhooks.mixin.js";
import { WEBHOOKS, type WebhookDoc } from "./webhooks/webhook-doc.js";
import { indexesMixin } from "../../shared/runtime/indexes-mixin.js";

interface AuthMethods extends InstanceSettingsMethods {
	users(): Collection<UserDoc>;
	deps(): AuthDeps;
	startSession(ctx: Context<unknown, CookieMeta>, user: UserDoc): Promise<Record<string, unknown>>;
	deleteUserData(ctx: Context, userId: string): Promise<void>;
	userChanged(id: string): void;
	sessionsRevoked(familyIds: readonly string[]): void;
	sessionOfAccessToken(token: string, now: number): Promise<AccessTokenClaims | null>;
}

interface AuthVars {
	signingKey: Uint8Array;
	/** Epoch milliseconds; tests replace it to step through the refresh grace and token expiry. */
	clock: () => number;
	/** Time allowed for each call to an identity provider; tests shorten it. */
	ssoTimeoutMs: number;
	activeUsers: BoundedCache<string, Promise<Caller | null>>;
	/** Access tokens verified with `signingKey`. */
	verifiedTokens: VerifiedTokens;
	/** Personal access tokens by hash, so that verifying one reads no store per request. */
	livePats: PatCache;
	/** Sessions (refresh families) known live or revoked, so that verifying an access token reads no store per request. */
	liveSessions: LiveSessions;
}

const AuthService: ServiceSchema<ServiceSettingSchema, AuthMethods, AuthVars> = {
	name: "auth",
	mixins: [InstanceSettingsMixin as Partial<ServiceSchema>, UserWebhooksMixin as Partial<ServiceSchema>, indexesMixin(ensureAuthIndexes)],

	actions: {
		/**
		 * Users by internal id or by username, for services that store user ids and show
		 * `users/{username}` names (one call per request, never one per item).
		 */
		lookupUsers: {
			visibility: "public",
			params: {
				ids: { type: "array", items: "string", optional: true },
				usernames: { type: "array", items: "string", optional: true }
			},
			async handler(ctx: Context<{ ids?: string[]; usernames?: string[] }>): Promise<UserRef[]> {
				const { ids = [], usernames = [] } = ctx.params;
				if (ids.length === 0 && usernames.length === 0) return [];
				const found = await this.users().find(
					{ $or: [{ _id: { $in: ids } }, { username: { $in: usernames } }] },
					{ projection: { username: 1, role: 1, state: 1 } }
				);
				return found.map(u => ({ id: u._id, username: u.username, role: u.role, state: u.state }));
			}
		},

		userMessages: {
			visibility: "public",
			params: { ids: { type: "array", items: "string", max: USER_MESSAGES_MAX } },
			async handler(ctx: Context<{ ids: string[] }, RequestMeta>): Promise<Record<string, Record<string, unknown>>> {
				const found = ctx.params.ids.length === 0 ? [] : await this.users().find({ _id: { $in: ctx.params.ids } });
				return Object.fromEntries(found.map(user => [user._id, toUserJson(user, mayReadEmail(ctx.meta.user, user))]));
			}
		},

		/** The users counter of InstanceStats (contract 4.11), for the instance service. */
		stats: {
			visibility: "public",
			async handler(): Promise<{ userCount: number }> {
				return { userCount: await this.users().estimatedCount() };
			}
		},

		/** What the instance profile needs to know of the users (contract 4.10). */
		setupState: {
			visibility: "public",
			async handler(): Promise<SetupState> {
				const users = this.users();
				const [userCount, admins] = await Promise.all([
					users.estimatedCount(),
					users.find({ role: "ADMIN" }, { sort: { createTime: 1, _id: 1 }, limit: 1 })
				]);
				const admin = admins[0];
				return { userCount, admin: admin ? toUserJson(admin, false) : null };
			}
		},

		/**
		 * The caller an access token stands for (the gateway's authentication, contract 2.1):
		 * valid signature and expiry, and a user still NORMAL, with their current name and role.
		 * A personal access token (contract 16) is accepted wherever an access token is.
		 */
		verifyAccessToken: {
			visibility: "public",
			params: { token: "string" },
			async handler(ctx: Context<{ token: string }>): Promise<Caller> {
				const now = this.clock();
				const { token } = ctx.params;
				let subject: { userId: string; sessionId?: string } | null;
				// A personal access token has its own verification and no session (contract 16).
				if (isPatShaped(token)) {
					const userId = await userOfPat(this.deps().pats, this.livePats, token, now);
					subject = userId === null ? null : { userId };
				} else subject = await this.sessionOfAccessToken(token, now);
				const userId = subject?.userId;
				const caller = userId === undefined ? null : await this.activeUsers.getOrLoad(userId, () => activeCaller(this.users(), userId));
				if (!caller) throw unauthenticated("invalid access token");
				return subject?.sessionId === undefined ? caller : { ...caller, sessionId: subject.sessionId };
			}
		},

		/**
		 * The caller a `memos_refresh` cookie stands for, for the file route (contract 8.5) where
		 * browsers send no access token; null when it is not a current token of an active user.
		 */
		callerOfRefreshCookie: {
			visibility: "public",
			params: { cookie: "string" },
			async handler(ctx: Context<{ cookie: string }>): Promise<Caller | null> {
				const now = this.clock();
				const userId = await userOfLiveToken(this.deps().refreshTokens, ctx.params.cookie, now);
				return userId === undefined ? null : await this.activeUsers.getOrLoad(userId, () => activeCaller(this.users(), userId));
			}
		},

		signIn: {
			async handler(ctx: Context<SignInParams, CookieMeta>) {
				try {
					const user = await signIn(this.deps(), ctx.params, { timeoutMs: this.ssoTimeoutMs }, ctx.meta.clientAddress);
					return await this.startSession(ctx, user);
				} catch (err) {
					if (err instanceof SignInLocked) ctx.meta.$responseHeaders = { "Retry-After": String(err.retryAfterSeconds) };
					throw err;
				}
			}
		},

		refreshToken: {
			async handler(ctx: Context<unknown, CookieMeta>) {
				const now = this.clock();
				const secure = ctx.meta.secureTransport === true;
				const tokens = this.deps().refreshTokens;
				const result = await rotate(tokens, ctx.meta.refreshCookie, now);
				if (result.kind === "grace") throw unauthenticated("refresh token was already used");
				if (result.kind === "invalid" && result.revokedFamilyId !== undefined) this.sessionsRevoked([result.revokedFamilyId]);
				const user = result.kind === "rotated" ? await this.users().findOne({ _id: result.userId }) : null;
				if (result.kind !== "rotated" || !user || user.state !== "NORMAL") {
					if (result.kind === "rotated") {
						await revokeFamily(tokens, result.next.familyId);
						this.sessionsRevoked([result.next.familyId]);
					}
					ctx.meta.$responseHeaders = { "Set-Cookie": clearRefreshCookie(secure) };
					throw unauthenticated("invalid refresh token");
				}
				const access = await issueAccessToken(this.signingKey, { id: user._id, username: user.username, role: user.role }, result.next.familyId, now);
				ctx.meta.$responseHeaders = { "Set-Cookie": setRefreshCookie(result.next.token, result.next.expiresAt, now, secure) };
				return { accessToken: access.token, expiresAt: toTimestamp(access.expiresAt) };
			}
		},

		signOut: {
			async handler(ctx: Context<unknown, CookieMeta>): Promise<void> {
				const tokens = this.deps().refreshTokens;
				const familyId = await familyOf(tokens, ctx.meta.refreshCookie);
				if (familyId !== undefined) {
					await revokeFamily(tokens, familyId);
					this.sessionsRevoked([familyId]);
				}
				ctx.meta.$responseHeaders = { "Set-Cookie": clearRefreshCookie(ctx.meta.secureTransport === true) };
			}
		},

		getCurrentUser: {
			async handler(ctx: Context<unknown, CookieMeta>) {
				const user = ctx.meta.user ? await this.users().findOne({ _id: ctx.meta.user.id }) : null;
				if (!user || user.state !== "NORMAL") {
					ctx.meta.$responseHeaders = { "Set-Cookie": clearRefreshCookie(ctx.meta.secureTransport === true) };
					throw unauthenticated();
				}
				return { user: toUserJson(user, true) };
			}
		},

		createUser: {
			async handler(ctx: Context<CreateUserParams, RequestMeta>) {
				const user = await createUser(this.deps(), ctx.params, ctx.meta.user ?? null);
				this.userChanged(user._id);
				return toUserJson(user, true);
			}
		},

		getUser: {
			handler(ctx: Context<{ user?: unknown }, RequestMeta>) {
				return getUser(this.deps(), ctx.params.user, ctx.meta.user);
			}
		},

		/** The avatar stored as a data URI, decoded, for the gateway's `/file/users/{username}/avatar` (the gateway checks access). */
		userAvatar: {
			visibility: "public",
			handler(ctx: Context<{ username?: unknown }>): Promise<AvatarImage> {
				return avatarImage(this.users(), ctx.params.username);
			}
		},

		listUsers: {
			async handler(ctx: Context<ListUsersParams, RequestMeta>) {
				const { users, nextPageToken } = await listUsers(this.deps(), ctx.params, ctx.meta.user);
				return { users: users.map(user => toUserJson(user, true)), nextPageToken };
			}
		},

		updateUser: {
			async handler(ctx: Context<UpdateUserParams, CookieMeta>) {
				const caller = ctx.meta.user;
				if (!caller) throw unauthenticated();
				const { user } = await updateUser(this.deps(), ctx.params, caller, ctx.meta.refreshCookie);
				this.userChanged(user._id);
				return toUserJson(user, mayReadEmail(caller, user));
			}
		},

		deleteUser: {
			async handler(ctx: Context<{ user?: unknown }, RequestMeta>): Promise<void> {
				const user = await deleteUser(this.deps(), ctx.params.user, ctx.meta.user, userId => this.deleteUserData(ctx, userId));
				this.userChanged(user._id);
			}
		},

		listIdentityProviders: {
			async handler() {
				return { identityProviders: (await listIdentityProviders(this.deps())).map(toIdpJson) };
			}
		},

		getIdentityProvider: {
			async handler(ctx: Context<{ identityProvider?: unknown }>) {
				return toIdpJson(await getIdentityProvider(this.deps(), ctx.params.identityProvider));
			}
		},

		createIdentityProvider: {
			async handler(ctx: Context<CreateIdpParams, RequestMeta>) {
				return toIdpJson(await createIdentityProvider(this.deps(), ctx.params, ctx.meta.user));
			}
		},

		updateIdentityProvider: {
			async handler(ctx: Context<UpdateIdpParams, RequestMeta>) {
				return toIdpJson(await updateIdentityProvider(this.deps(), ctx.params, ctx.meta.user));
			}
		},

		deleteIdentityProvider: {
			async handler(ctx: Context<{ identityProvider?: unknown }, RequestMeta>): Promise<void> {
				await deleteIdentityProvider(this.deps(), ctx.params.identityProvider, ctx.meta.user);
			}
		},

		listPersonalAccessTokens: {
			handler(ctx: Context<ListPatsParams, RequestMeta>) {
				return listPats(this.deps(), ctx.params, signedIn(ctx));
			}
		},

		createPersonalAccessToken: {
			handler(ctx: Context<CreatePatParams, RequestMeta>) {
				return createPat(this.deps(), ctx.params, signedIn(ctx));
			}
		},

		listLinkedIdentities: {
			handler(ctx: Context<{ user?: unknown }, RequestMeta>) {
				return listLinkedIdentities(this.deps(), ctx.params.user, signedIn(ctx));
			}
		},

		/** CreateLinkedIdentity (contract 16): an OAuth2 code exchange, then the link. */
		createLinkedIdentity: {
			handler(ctx: Context<JsonMessage, RequestMeta>) {
				return createLinkedIdentity(this.deps(), ctx.params, signedIn(ctx), { timeoutMs: this.ssoTimeoutMs });
			}
		},

		getLinkedIdentity: {
			handler(ctx: Context<{ user?: unknown; linkedIdentity?: unknown }, RequestMeta>) {
				return getLinkedIdentity(this.deps(), ctx.params, signedIn(ctx));
			}
		},

		deleteLinkedIdentity: {
			async handler(ctx: Context<{ user?: unknown; linkedIdentity?: unknown }, RequestMeta>): Promise<void> {
				await deleteLinkedIdentity(this.deps(), ctx.params, signedIn(ctx));
			}
		},

		batchGetUsers: {
			handler(ctx: Context<{ usernames?: unknown }, RequestMeta>) {
				return batchGetUsers(this.users(), ctx.params.usernames, ctx.meta.user);
			}
		},

		listUserSettings: {
			handler(ctx: Context<{ user?: unknown }, RequestMeta>) {
				return listUserSettings(this.deps(), ctx.params, signedIn(ctx));
			}
		},

		getUserSetting: {
			handler(ctx: Context<{ user?: unknown; setting?: unknown }, RequestMeta>) {
				return getUserSetting(this.deps(), ctx.params, signedIn(ctx));
			}
		},

		updateUserSetting: {
			handler(ctx: Context<UpdateUserSettingParams, RequestMeta>) {
				return updateUserSetting(this.deps(), ctx.params, signedIn(ctx));
			}
		},

		defaultMemoVisibility: {
			visibility: "public",
			params: { userId: "string" },
			handler(ctx: Context<{ userId: string }>) {
				return defaultMemoVisibility(this.deps(), ctx.params.userId);
			}
		},

		deletePersonalAccessToken: {
			async handler(ctx: Context<{ user?: unknown; personalAccessToken?: unknown }, RequestMeta>): Promise<void> {
				const tokenHash = await deletePat(this.deps(), ctx.params, signedIn(ctx));
				this.livePats.delete(tokenHash);
				broadcast(this.broker, authEvents.patDeleted, { tokenHash });
			}
		}
	},

	events: {
		...invalidateOn<Service & AuthMethods & AuthVars, string, { id: string }>(
			authEvents.userChanged.name,
			service => service.activeUsers,
			params => (params.id ? [params.id] : undefined)
		),
		...invalidateOn<Service & AuthMethods & AuthVars, string, { tokenHash: string }>(
			authEvents.patDeleted.name,
			service => service.livePats,
			params => (params.tokenHash ? [params.tokenHash] : undefined)
		),
		...invalidateOn<Service & AuthMethods & AuthVars, string, { familyIds: string[] }>(
			authEvents.sessionsRevoked.name,
			service => service.liveSessions,
			params => params.familyIds
		)
	},

	methods: {
		users(): Collection<UserDoc> {
			return documentsOf(this.broker).collection<UserDoc>(USERS);
		},

		deps(): AuthDeps {
			const documents = documentsOf(this.broker);
			return {
				users: this.users(),
				refreshTokens: documents.collection<RefreshTokenDoc>(REFRESH_TOKENS),
				identityProviders: documents.collection<IdpDoc>(IDENTITY_PROVIDERS),
				userLinks: documents.collection<UserLinkDoc>(USER_LINKS),
				pats: documents.collection<PatDoc>(PERSONAL_ACCESS_TOKENS),
				userSettings: documents.collection<UserSettingDoc>(USER_SETTINGS),
				webhooks: documents.collection<WebhookDoc>(WEBHOOKS),
				signInAttempts: documents.collection<SignInAttemptsDoc>(SIGN_IN_ATTEMPTS),
				claims: documents.collection<Doc>("auth_claims"),
				sessionsRevoked: familyIds => this.sessionsRevoked(familyIds),
				now: () => this.clock(),
				general: async () => (await this.instanceSetting("GENERAL")) as GeneralSetting
			};
		},

		/** A sign-in: a new refresh family in the cookie and an access token (contract 2.3). */
		async startSession(ctx: Context<unknown, CookieMeta>, user: UserDoc): Promise<Record<string, unknown>> {
			const now = this.clock();
			const refresh = await startFamily(this.deps().refreshTokens, user._id, now);
			const access = await issueAccessToken(this.signingKey, { id: user._id, username: user.username, role: user.role }, refresh.familyId, now);
			ctx.meta.$responseHeaders = { "Set-Cookie": setRefreshCookie(refresh.token, refresh.expiresAt, now, ctx.meta.secureTransport === true) };
			return { user: toUserJson(user, true), accessToken: access.token, accessTokenExpiresAt: toTimestamp(access.expiresAt) };
		},

		/** One call per service that owns user data and offers the clean-up action (contract 2.4, DeleteUser). */
		async deleteUserData(ctx: Context, userId: string): Promise<void> {
			const running = new Set(this.broker.registry.getServiceList({ onlyAvailable: true }).map(service => service.name));
			for (const action of USER_DATA_CLEANUP_ACTIONS) {
				const service = action.service;
				// A service that is down would leave the user's data behind: refuse, the admin retries.
				if (!running.has(service)) throw unavailable(`the ${service} service is unavailable; retry the deletion`);
				if (this.broker.registry.getActionEndpoints(action.name)) await call(ctx, action, { userId });
			}
		},

		userChanged(id: string): void {
			this.activeUsers.delete(id);
			broadcast(this.broker, authEvents.userChanged, { id });
		},

		/** Dropped here at once, so that this node's next verification already refuses; the event tells the other nodes. */
		sessionsRevoked(familyIds: readonly string[]): void {
			if (familyIds.length === 0) return;
			this.liveSessions.invalidate(familyIds);
			broadcast(this.broker, authEvents.sessionsRevoked, { familyIds: [...familyIds] });
		},

		/** The claims of a valid access token whose session is still live (contract 19, "Revocation"), or null. */
		async sessionOfAccessToken(token: string, now: number): Promise<AccessTokenClaims | null> {
			const claims = await verifyAccessToken(this.signingKey, token, now, this.verifiedTokens);
			if (claims === null) return null;
			return (await isLiveSession(this.deps().refreshTokens, this.liveSessions, claims.sessionId)) ? claims : null;
		}
	},

	created() {
		this.clock = () => Date.now();
		this.ssoTimeoutMs = SSO_TIMEOUT_MS;
		this.activeUsers = activeUsersCache(() => this.clock());
		this.verifiedTokens = verifiedTokensCache(() => this.clock());
		this.livePats = patCache(() => this.clock());
		this.liveSessions = liveSessionsCache(() => this.clock());
	},

	async started() {
		this.signingKey = await loadSigningKey(resourcesOf(this.broker).config.jwtSecret, documentsOf(this.broker).collection<SecretDoc>(SECRETS));
	}
};

export default AuthService;
