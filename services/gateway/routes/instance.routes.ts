import { instanceActions } from "../../instance/instance.contract.js";
import type { RouteSpec } from "../route-spec.js";

/**
 * InstanceService (contract 11). The setting routes are written `/api/v1/instance/{instance}/*`
 * in the specification; their canonical form (11.1) fixes `{instance}` to `settings`, so any
 * other value is not a route. Read rights depend on the key (11.2), so the service decides them.
 */
export const instanceRoutes: RouteSpec[] = [
	{
		operation: "GetInstanceProfile",
		method: "GET",
		path: "/api/v1/instance/profile",
		action: instanceActions.getProfile,
		access: "anyone",
		summary: "The instance's profile: version, owner, whether it needs set-up, access mode."
	},
	{
		operation: "GetInstanceStats",
		method: "GET",
		path: "/api/v1/instance/stats",
		action: instanceActions.getStats,
		access: "signed-in",
		summary: "Counts of users, memos, attachments and spaces, and storage sizes (admins only)."
	},
	{
		operation: "BatchGetInstanceSettings",
		method: "POST",
		path: "/api/v1/instance/settings:batchGet",
		action: instanceActions.batchGetSettings,
		access: "anyone",
		body: "*",
		idempotent: true,
		summary: "Several instance settings in request order; each key's read rights apply."
	},
	{
		operation: "TestInstanceEmailSetting",
		method: "POST",
		path: "/api/v1/instance/settings/notification:testEmail",
		action: instanceActions.testEmailSetting,
		access: "signed-in",
		body: "*",
		empty: true,
		summary: "Sends one test message with the given or stored SMTP settings (admins only); nothing is stored."
	},
	{
		operation: "GetInstanceSetting",
		method: "GET",
		path: "/api/v1/instance/settings/{key}",
		action: instanceActions.getSetting,
		access: "anyone",
		summary: "One instance setting by key (case-insensitive); public keys are readable by anyone."
	},
	{
		operation: "UpdateInstanceSetting",
		method: "PATCH",
		path: "/api/v1/instance/settings/{key}",
		action: instanceActions.updateSetting,
		access: "signed-in",
		// Nested, as upstream's `body: "setting"`: an `updateMask` in the body cannot stand in for the query's (1.6).
		body: "setting",
		idempotent: true,
		summary: "Replaces an instance setting, or the fields named by updateMask (admins only)."
	}
];
