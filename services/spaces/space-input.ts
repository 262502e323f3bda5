import { failedPrecondition, invalidArgument, notFound } from "../../shared/errors.js";
import { parseName } from "../../shared/names.js";
import { parseEnum } from "../../shared/proto-json.js";
import type { UserRef } from "../auth/auth.service.js";
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
	if (value !== undefined && typeof value !== "string") throw invalidArgument("displayName must be a string");
	const name = (value ?? "").trim();
	if (name === "") throw invalidArgument("displayName is required");
	if (length(name) > DISPLAY_NAME_MAX) throw invalidArgument(`displayName must be at most ${DISPLAY_NAME_MAX} characters`);
	return name;
}

/** At most 2000 characters; unset is "". */
export function readDescription(value: unknown): string {
	if (value === undefined) return "";
	if (typeof value !== "string") throw invalidArgument("description must be a string");
	if (length(value) > DESCRIPTION_MAX) throw invalidArgument(`description must be at most ${DESCRIPTION_MAX} characters`);
	return value;
}

/** A role; ROLE_UNSPECIFIED or unset gives `fallback`, or INVALID_ARGUMENT when there is none. */
export function readRole(value: unknown, fallback?: SpaceRole): SpaceRole {
	const role = value === undefined ? "ROLE_UNSPECIFIED" : parseEnum(value, ROLE_VALUES, "role");
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

/** A query parameter that must be a single string when present. */
export function optionalString(value: unknown, field: string): string | undefined {
	if (value === undefined) return undefined;
	if (typeof value !== "string") throw invalidArgument(`${field} must be given once, as a string`);
	return value;
}
