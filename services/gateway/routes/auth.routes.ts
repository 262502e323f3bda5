import { authActions } from "../../auth/auth.contract.js";
import type { RouteSpec } from "../route-spec.js";

/** AuthService (contract 2.3). */
export const authRoutes: RouteSpec[] = [
	{
		operation: "SignIn",
		method: "POST",
		path: "/api/v1/auth/signin",
		action: authActions.signIn,
		access: "anyone",
		body: "*",
		ignoresAccessToken: true,
		refreshCookie: true,
		clientAddress: true,
		summary: "Signs in with a password or an SSO code; sets the refresh cookie and returns an access token."
	},
	{
		operation: "RefreshToken",
		method: "POST",
		path: "/api/v1/auth/refresh",
		action: authActions.refreshToken,
		access: "anyone",
		body: "*",
		ignoresAccessToken: true,
		refreshCookie: true,
		summary: "Exchanges the refresh cookie for a new access token and a rotated cookie."
	},
	{
		operation: "SignOut",
		method: "POST",
		path: "/api/v1/auth/signout",
		action: authActions.signOut,
		access: "anyone",
		empty: true,
		ignoresAccessToken: true,
		refreshCookie: true,
		summary: "Revokes the refresh cookie's family and clears the cookie."
	},
	{
		operation: "GetCurrentUser",
		method: "GET",
		path: "/api/v1/auth/me",
		action: authActions.getCurrentUser,
		access: "signed-in",
		refreshCookie: true,
		authFailureClearsRefreshCookie: true,
		summary: "The signed-in user, e-mail included."
	}
];
