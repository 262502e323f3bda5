import { failedPrecondition, invalidArgument, notFound } from "../../shared/errors.js";
import { parseName } from "../../shared/names.js";
import { enumOf, stringOf } from "../../shared/request-message.js";
import type { UserRef } from "../auth/auth.contract.js";
import { ROLE_VALUES, type SpaceRole } from "./space-doc.js";

/** Request fields of the SpaceService (contract 4.7, 9), validated. */

const DISPLAY_NAME_MAX = 100;
const DESCRIPTION_MAX = 2000;

/** Characters are code points, so an emoji counts once. */
function length(text: string): number {
	return [...text].length;
}

/** Required, trimmed, 1–100 characters. */
export function readDisplayName(value: unknown): string {
	const name = stringOf(value, "displayName").trim();
	if (name === "") throw invalidArgument("displayName is required");
	if (length(name) > DISPLAY_NAME_MAX) throw invalidArgument(`displayName must be at most ${DISPLAY_NAME_MAX} characters`);
	return name;
}

/** At most 2000 characters; unset is "". */
export function readDescription(value: unknown): string {
	const description = stringOf(value, "description");
	if (length(description) > DESCRIPTION_MAX) throw invalidArgument(`description must be at most ${DESCRIPTION_MAX} characters`);
	return description;
}

/** A role; ROLE_UNSPECIFIED or unset gives `fallback`, or INVALID_ARGUMENT when there is none. */
export function readRole(value: unknown, fallback?: SpaceRole): SpaceRole {
	const role = enumOf(value, ROLE_VALUES, "role");
	if (role !== "ROLE_UNSPECIFIED") return role;
	if (fallback === undefined) throw invalidArgument("role must be ADMIN or MEMBER");
	return fallback;
}

/** The username of a required `users/{username}` field. */
export function readUserName(value: unknown, field: string): string {
	if (value === undefined || value === "") throw invalidArgument(`${field} is required`);
	if (typeof value !== "string") throw invalidArgument(`${field} must be a resource name of the form users/{user}`);
	return parseName("user", value, field);
}

/** A user who may join a space (contract 9): unknown NOT_FOUND, ARCHIVED FAILED_PRECONDITION. */
export function joinableUser(found: UserRef | undefined, username: string): UserRef {
	if (found === undefined) throw notFound(`user "users/${username}" not found`);
	if (found.state === "ARCHIVED") throw failedPrecondition(`user "users/${username}" is archived`);
	return found;
}
