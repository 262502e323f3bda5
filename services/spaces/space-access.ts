import type { Caller } from "../../shared/caller.js";
import { notFound, permissionDenied } from "../../shared/errors.js";
import { pathId } from "../../shared/ids.js";
import { memberId, type MemberDoc, type SpaceDoc } from "./space-doc.js";
import type { SpacesStore } from "./spaces-store.js";

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

/** The space of a `{space}` path param and the caller's membership, checked by assertSpaceAccess. */
export async function spaceFor(
	store: SpacesStore,
	idParam: unknown,
	caller: Caller,
	need: "member" | "admin"
): Promise<{ space: SpaceDoc; membership: MemberDoc | null }> {
	const id = pathId(idParam);
	const [space, membership] = await Promise.all([store.spaces.findOne({ _id: id }), store.members.findOne({ _id: memberId(id, caller.id) })]);
	assertSpaceAccess(space, membership, id, caller, need);
	return { space, membership };
}
