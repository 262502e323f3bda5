import { authActions } from "../../auth/auth.contract.js";
import type { RouteSpec } from "../route-spec.js";

/** IdentityProviderService (contract 10); the auth service owns identity providers. */
export const identityProvidersRoutes: RouteSpec[] = [
	{
		operation: "ListIdentityProviders",
		method: "GET",
		path: "/api/v1/identity-providers",
		action: authActions.listIdentityProviders,
		access: "anyone",
		summary: "Every identity provider, in creation order (client secrets blanked)."
	},
	{
		operation: "CreateIdentityProvider",
		method: "POST",
		path: "/api/v1/identity-providers",
		action: authActions.createIdentityProvider,
		access: "signed-in",
		body: "identityProvider",
		summary: "Adds an OAuth2 identity provider (admins only)."
	},
	{
		operation: "GetIdentityProvider",
		method: "GET",
		path: "/api/v1/identity-providers/{identityProvider}",
		action: authActions.getIdentityProvider,
		access: "signed-in",
		summary: "One identity provider (client secret blanked)."
	},
	{
		operation: "UpdateIdentityProvider",
		method: "PATCH",
		path: "/api/v1/identity-providers/{identityProvider}",
		action: authActions.updateIdentityProvider,
		access: "signed-in",
		// Not `identityProvider`: the path parameter of that name would replace it.
		body: "patch",
		idempotent: true,
		summary: "Changes the top-level fields named by updateMask (admins only)."
	},
	{
		operation: "DeleteIdentityProvider",
		method: "DELETE",
		path: "/api/v1/identity-providers/{identityProvider}",
		action: authActions.deleteIdentityProvider,
		access: "signed-in",
		empty: true,
		summary: "Removes an identity provider and the user links to it (admins only)."
	}
];
