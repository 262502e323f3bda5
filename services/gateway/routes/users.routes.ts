import { authActions } from "../../auth/auth.contract.js";
import { memosActions } from "../../memos/memos.contract.js";
import type { RouteSpec } from "../route-spec.js";
import { USER_BODY } from "../body-limits.js";

/**
 * UserService (contracts 2.4 and 16); the auth service owns users, the memos service their memo
 * statistics. `{user}` is the username.
 */
export const usersRoutes: RouteSpec[] = [
	{
		operation: "CreateUser",
		method: "POST",
		path: "/api/v1/users",
		action: authActions.createUser,
		access: "anyone",
		body: "user",
		bodyLimit: USER_BODY,
		summary: "Registers a user; the first user of an instance becomes its ADMIN."
	},
	{
		operation: "ListUsers",
		method: "GET",
		path: "/api/v1/users",
		action: authActions.listUsers,
		access: "signed-in",
		summary: "Every user, oldest first (admins only); filter `username == \"name\"`."
	},
	{
		operation: "BatchGetUsers",
		method: "POST",
		path: "/api/v1/users:batchGet",
		action: authActions.batchGetUsers,
		access: "public-instance",
		body: "*",
		idempotent: true,
		summary: "The active users of up to 100 usernames; unknown ones are left out."
	},
	{
		operation: "ListAllUserStats",
		method: "GET",
		path: "/api/v1/users:stats",
		action: memosActions.listAllUserStats,
		access: "public-instance",
		summary: "Memo statistics per user, over the memos the caller can read."
	},
	{
		// Before GetUser: `{user}` alone would also match `admin:getStats`.
		operation: "GetUserStats",
		method: "GET",
		path: "/api/v1/users/{user}:getStats",
		action: memosActions.getUserStats,
		access: "public-instance",
		summary: "Memo statistics of one user, over the memos the caller can read."
	},
	{
		operation: "GetUser",
		method: "GET",
		path: "/api/v1/users/{user}",
		action: authActions.getUser,
		access: "public-instance",
		summary: "One user; the e-mail only for the user themself and admins."
	},
	{
		operation: "UpdateUser",
		method: "PATCH",
		path: "/api/v1/users/{user}",
		action: authActions.updateUser,
		access: "signed-in",
		// Not `user`: the path parameter of that name would replace it (path parameters win).
		body: "patch",
		// A password change keeps the session it was made from (contract 2.1).
		refreshCookie: true,
		bodyLimit: USER_BODY,
		summary: "Changes the fields named by updateMask; role and state by admins only."
	},
	{
		operation: "DeleteUser",
		method: "DELETE",
		path: "/api/v1/users/{user}",
		action: authActions.deleteUser,
		access: "signed-in",
		empty: true,
		summary: "Deletes a user and their data (admins only)."
	},
	{
		operation: "ListPersonalAccessTokens",
		method: "GET",
		path: "/api/v1/users/{user}/personalAccessTokens",
		action: authActions.listPersonalAccessTokens,
		access: "signed-in",
		summary: "A user's personal access tokens, newest first, without their values (the user themself or admins)."
	},
	{
		operation: "CreatePersonalAccessToken",
		method: "POST",
		path: "/api/v1/users/{user}/personalAccessTokens",
		action: authActions.createPersonalAccessToken,
		access: "signed-in",
		body: "*",
		summary: "Creates a long-lived token for clients and scripts; its value is in this answer only (the user themself)."
	},
	{
		operation: "DeletePersonalAccessToken",
		method: "DELETE",
		path: "/api/v1/users/{user}/personalAccessTokens/{personalAccessToken}",
		action: authActions.deletePersonalAccessToken,
		access: "signed-in",
		empty: true,
		idempotent: true,
		summary: "Deletes a personal access token; every node refuses it within 3 s (the user themself or admins)."
	},
	{
		operation: "ListUserSettings",
		method: "GET",
		path: "/api/v1/users/{user}/settings",
		action: authActions.listUserSettings,
		access: "signed-in",
		summary: "The GENERAL, WEBHOOKS and TAGS settings of a user (the user themself or admins)."
	},
	{
		operation: "GetUserSetting",
		method: "GET",
		path: "/api/v1/users/{user}/settings/{setting}",
		action: authActions.getUserSetting,
		access: "signed-in",
		summary: "One user setting by key; a setting never stored reads as its default (the user themself or admins)."
	},
	{
		operation: "UpdateUserSetting",
		method: "PATCH",
		path: "/api/v1/users/{user}/settings/{setting}",
		action: authActions.updateUserSetting,
		access: "signed-in",
		body: "patch",
		idempotent: true,
		summary: "Changes GENERAL or TAGS fields named by updateMask (the user themself)."
	},
	{
		operation: "ListLinkedIdentities",
		method: "GET",
		path: "/api/v1/users/{user}/linkedIdentities",
		action: authActions.listLinkedIdentities,
		access: "signed-in",
		summary: "A user's accounts at identity providers, one per provider (the user themself or admins)."
	},
	{
		operation: "CreateLinkedIdentity",
		method: "POST",
		path: "/api/v1/users/{user}/linkedIdentities",
		action: authActions.createLinkedIdentity,
		access: "signed-in",
		body: "*",
		summary: "Links the caller to the provider account an OAuth2 code exchange names; SSO sign-in then finds them by it (the user themself)."
	},
	{
		operation: "GetLinkedIdentity",
		method: "GET",
		path: "/api/v1/users/{user}/linkedIdentities/{linkedIdentity}",
		action: authActions.getLinkedIdentity,
		access: "signed-in",
		summary: "The user's account at one identity provider, named by the provider's id (the user themself or admins)."
	},
	{
		operation: "DeleteLinkedIdentity",
		method: "DELETE",
		path: "/api/v1/users/{user}/linkedIdentities/{linkedIdentity}",
		action: authActions.deleteLinkedIdentity,
		access: "signed-in",
		empty: true,
		idempotent: true,
		summary: "Unlinks an identity-provider account (the user themself or admins)."
	},
	{
		operation: "ListShortcuts",
		method: "GET",
		path: "/api/v1/users/{user}/shortcuts",
		action: memosActions.listShortcuts,
		access: "signed-in",
		summary: "A user's saved memo filters, oldest first (the user themself)."
	},
	{
		operation: "CreateShortcut",
		method: "POST",
		path: "/api/v1/users/{user}/shortcuts",
		action: memosActions.createShortcut,
		access: "signed-in",
		body: "shortcut",
		summary: "Saves a memo filter under a title; the filter must be one ListMemos accepts (the user themself)."
	},
	{
		operation: "GetShortcut",
		method: "GET",
		path: "/api/v1/users/{user}/shortcuts/{shortcut}",
		action: memosActions.getShortcut,
		access: "signed-in",
		summary: "One shortcut (the user themself)."
	},
	{
		operation: "UpdateShortcut",
		method: "PATCH",
		path: "/api/v1/users/{user}/shortcuts/{shortcut}",
		action: memosActions.updateShortcut,
		access: "signed-in",
		// Not `shortcut`: the path parameter of that name would replace it.
		body: "patch",
		idempotent: true,
		summary: "Changes the title or filter named by updateMask (the user themself)."
	},
	{
		operation: "DeleteShortcut",
		method: "DELETE",
		path: "/api/v1/users/{user}/shortcuts/{shortcut}",
		action: memosActions.deleteShortcut,
		access: "signed-in",
		empty: true,
		idempotent: true,
		summary: "Deletes a shortcut (the user themself)."
	}
];
