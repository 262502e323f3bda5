import type { RouteSpec } from "../route-spec.js";

export const instanceRoutes: RouteSpec[] = [
	{
		operation: "GetInstanceProfile",
		method: "GET",
		path: "/api/v1/instance/profile",
		action: "instance.getProfile",
		access: "anyone",
		summary: "The instance's profile: version, owner, whether it needs set-up, access mode."
	}
];
