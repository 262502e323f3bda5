import type { RouteSpec } from "../route-spec.js";

/** UserService (contract 2.4); the auth service owns users. */
export const usersRoutes: RouteSpec[] = [
	{
		operation: "CreateUser",
		method: "POST",
		path: "/api/v1/users",
		action: "auth.createUser",
		access: "anyone",
		body: "user",
		summary: "Registers a user; the first user of an instance becomes its ADMIN."
	}
];
