import { formatName } from "../../shared/names.js";
import type { UserRef } from "../auth/auth.contract.js";
import type { MemberDoc, SpaceDoc } from "./space-doc.js";

/** A space as one caller sees it: the caller's membership (null for instance ADMINs outside it) and the creator's name. */
export interface SpaceView {
	space: SpaceDoc;
	membership: MemberDoc | null;
	/** `users/{username}`, or "" when the creator is gone. */
	creator: string;
}

/** A member with the username its resource name is made of. */
export interface MemberView {
	member: MemberDoc;
	username: string;
}

export function creatorName(users: Map<string, UserRef>, creatorId: string): string {
	const user = users.get(creatorId);
	return user === undefined ? "" : formatName("user", user.username);
}
