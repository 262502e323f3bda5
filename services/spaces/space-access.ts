import type { Caller } from "../../shared/caller.js";
import { notFound, permissionDenied } from "../../shared/errors.js";
import type { MemberDoc, SpaceDoc } from "./space-doc.js";

export const spaceNotFound = (id: string) => notFound(`space "spaces/${id}" not found`);

/**
 * Who reaches a space route (contract 1.10, 3.4, 9): a space that does not exist and a space
 * the caller is not a member of both answer NOT_FOUND, except to instance ADMINs, who manage
 * every space; then `need: "admin"` requires a space ADMIN (or an instance ADMIN), else
 * PERMISSION_DENIED.
 */
export function assertSpaceAccess(
	space: SpaceDoc | null,
	membership: MemberDoc | null,
	id: string,
	caller: Caller,
	need: "member" | "admin"
): asserts space is SpaceDoc {
	const instanceAdmin = caller.role === "ADMIN";
	if (space === null || (membership === null && !instanceAdmin)) throw spaceNotFound(id);
	if (need === "admin" && membership?.role !== "ADMIN" && !instanceAdmin) {
		throw permissionDenied(`only an ADMIN of space "spaces/${id}" may do this`);
	}
}
