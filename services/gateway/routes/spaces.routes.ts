import { spacesActions } from "../../spaces/spaces.contract.js";
import type { RouteSpec } from "../route-spec.js";

/** SpaceService (contract 9). `{member}` is the member's username. */
export const spacesRoutes: RouteSpec[] = [
	{
		operation: "ListSpaces",
		method: "GET",
		path: "/api/v1/spaces",
		action: spacesActions.listSpaces,
		access: "signed-in",
		summary: "The spaces the caller is a member of, newest first, with the caller's membership."
	},
	{
		operation: "CreateSpace",
		method: "POST",
		path: "/api/v1/spaces",
		action: spacesActions.createSpace,
		access: "signed-in",
		body: "space",
		summary: "Creates a space; the caller becomes its first ADMIN."
	},
	{
		operation: "GetSpace",
		method: "GET",
		path: "/api/v1/spaces/{space}",
		action: spacesActions.getSpace,
		access: "signed-in",
		summary: "One space, for its members and instance admins."
	},
	{
		operation: "UpdateSpace",
		method: "PATCH",
		path: "/api/v1/spaces/{space}",
		action: spacesActions.updateSpace,
		access: "signed-in",
		// Not `space`: the path parameter of that name would replace it (path parameters win).
		body: "patch",
		idempotent: true,
		summary: "Changes the display name or description (space ADMINs)."
	},
	{
		operation: "DeleteSpace",
		method: "DELETE",
		path: "/api/v1/spaces/{space}",
		action: spacesActions.deleteSpace,
		access: "signed-in",
		empty: true,
		summary: "Deletes a space; with force, its memos are detached first (space ADMINs)."
	},
	{
		operation: "ListSpaceMembers",
		method: "GET",
		path: "/api/v1/spaces/{space}/members",
		action: spacesActions.listSpaceMembers,
		access: "signed-in",
		summary: "The members of a space in join order."
	},
	{
		operation: "AddSpaceMember",
		method: "POST",
		path: "/api/v1/spaces/{space}/members",
		action: spacesActions.addSpaceMember,
		access: "signed-in",
		body: "member",
		summary: "Adds a user to a space, as MEMBER unless a role is given (space ADMINs)."
	},
	{
		operation: "UpdateSpaceMember",
		method: "PATCH",
		path: "/api/v1/spaces/{space}/members/{member}",
		action: spacesActions.updateSpaceMember,
		access: "signed-in",
		// Not `member`: the path parameter of that name would replace it (path parameters win).
		body: "patch",
		idempotent: true,
		summary: "Changes a member's role; a space keeps at least one ADMIN (space ADMINs)."
	},
	{
		operation: "RemoveSpaceMember",
		method: "DELETE",
		path: "/api/v1/spaces/{space}/members/{member}",
		action: spacesActions.removeSpaceMember,
		access: "signed-in",
		empty: true,
		summary: "Removes a member, or the caller leaves; never the last ADMIN."
	}
];
