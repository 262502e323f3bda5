import type { Doc } from "../../shared/store/document-store.js";

export interface FieldMapping {
	identifier: string;
	displayName: string;
	email: string;
	avatarUrl: string;
}

export interface OAuth2Config {
	clientId: string;
	/** Write-only: never returned. */
	clientSecret: string;
	authUrl: string;
	tokenUrl: string;
	userInfoUrl: string;
	scopes: string[];
	fieldMapping: FieldMapping;
}

/** An identity provider (collection `auth_identity_providers`, `_id` = its id). */
export interface IdpDoc extends Doc {
	type: "OAUTH2";
	title: string;
	identifierFilter: string;
	oauth2Config: OAuth2Config;
	createTime: number;
}

/** A user's external account: (provider, identifier) → user, unique. */
export interface UserLinkDoc extends Doc {
	idpId: string;
	identifier: string;
	userId: string;
}

export const IDENTITY_PROVIDERS = "auth_identity_providers";
export const USER_LINKS = "auth_user_links";
