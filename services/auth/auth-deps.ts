import type { Collection, Doc } from "../../shared/store/document-store.js";
import type { IdpDoc, UserLinkDoc } from "./idp-doc.js";
import type { PatDoc } from "./personal-access-tokens.js";
import type { UserSettingDoc } from "./user-settings.js";
import type { RefreshTokenDoc } from "./refresh-tokens.js";
import type { SignInAttemptsDoc } from "./sign-in-attempts.js";
import type { UserDoc } from "./user-doc.js";
import type { WebhookDoc } from "./webhooks/webhook-doc.js";

/** The GENERAL instance setting fields the auth rules read (contract 4.12). */
export interface GeneralSetting {
	disallowUserRegistration?: boolean;
	disallowPasswordAuth?: boolean;
	disallowChangeUsername?: boolean;
	disallowChangeNickname?: boolean;
}

/** What the auth rules need, handed to the plain modules by the service (and by unit tests). */
export interface AuthDeps {
	users: Collection<UserDoc>;
	refreshTokens: Collection<RefreshTokenDoc>;
	identityProviders: Collection<IdpDoc>;
	userLinks: Collection<UserLinkDoc>;
	pats: Collection<PatDoc>;
	userSettings: Collection<UserSettingDoc>;
	/** Users' webhooks (contract 17): the WEBHOOKS user setting lists them; DeleteUser removes them. */
	webhooks: Collection<WebhookDoc>;
	/** Failed password sign-ins per username and per client address (contract 19). */
	signInAttempts: Collection<SignInAttemptsDoc>;
	/** Marks that must be claimed once (the first user). */
	claims: Collection<Doc>;
	/** Sessions (refresh families) were revoked: every node stops accepting their access tokens (contract 19). */
	sessionsRevoked(familyIds: readonly string[]): void;
	/** Epoch milliseconds; replaced in tests to step through the refresh grace and token expiry. */
	now(): number;
	general(): Promise<GeneralSetting>;
}
