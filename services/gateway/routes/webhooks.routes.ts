import { authActions } from "../../auth/auth.contract.js";
import type { RouteSpec } from "../route-spec.js";

/** Upstream v0.30.0's user webhooks (contract 17); the auth service owns them, `{user}` is the username. */
export const webhooksRoutes: RouteSpec[] = [
	{
		operation: "ListUserWebhooks",
		method: "GET",
		path: "/api/v1/users/{user}/webhooks",
		action: authActions.listUserWebhooks,
		access: "signed-in",
		summary: "A user's webhooks in creation order, without their signing secrets (the user themself or admins)."
	},
	{
		operation: "CreateUserWebhook",
		method: "POST",
		path: "/api/v1/users/{user}/webhooks",
		action: authActions.createUserWebhook,
		access: "signed-in",
		body: "webhook",
		summary: "Registers a URL that receives the user's memo changes, signed; a signing secret is generated unless given (the user themself or admins)."
	},
	{
		// Before the other `{webhook}` routes: `{webhook}` alone would also match `id:getSigningSecret`.
		operation: "GetUserWebhookSigningSecret",
		method: "GET",
		path: "/api/v1/users/{user}/webhooks/{webhook}:getSigningSecret",
		action: authActions.getUserWebhookSigningSecret,
		access: "signed-in",
		summary: "The webhook's signing secret, the only answer that holds it (the user themself or admins)."
	},
	{
		operation: "UpdateUserWebhook",
		method: "PATCH",
		path: "/api/v1/users/{user}/webhooks/{webhook}",
		action: authActions.updateUserWebhook,
		access: "signed-in",
		// Not `webhook`: the path parameter of that name would replace it (path parameters win).
		body: "patch",
		idempotent: true,
		summary: "Changes the url, display_name or signing_secret named by updateMask; without one, as upstream (the user themself or admins)."
	},
	{
		operation: "DeleteUserWebhook",
		method: "DELETE",
		path: "/api/v1/users/{user}/webhooks/{webhook}",
		action: authActions.deleteUserWebhook,
		access: "signed-in",
		empty: true,
		idempotent: true,
		summary: "Deletes a webhook; its pending deliveries are dropped (the user themself or admins)."
	}
];
