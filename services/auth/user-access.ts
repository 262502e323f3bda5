import type { Caller } from "../../shared/caller.js";
import { failedPrecondition, notFound, permissionDenied } from "../../shared/errors.js";
import type { Collection } from "../../shared/store/document-store.js";
import type { UserDoc } from "./user-doc.js";

/** The user named by a `{user}` path parameter (the username). */
export async function findByUsername(users: Collection<UserDoc>, username: unknown): Promise<UserDoc> {
	const user = typeof username === "string" && username !== "" ? await users.findOne({ username }) : null;
	if (!user) throw notFound(`user ${String(username)} not found`);
	return user;
}

/** E-mail addresses are shown to the user themself and to admins only (contract 2.4). */
export function mayReadEmail(caller: Caller | null | undefined, user: UserDoc): boolean {
	return caller?.role === "ADMIN" || caller?.id === user._id;
}

export function requireAdmin(caller: Caller | null | undefined): void {
	if (caller?.role !== "ADMIN") throw permissionDenied("only an admin may do this");
}

/** An instance always keeps one active ADMIN (contract 2.4). */
export async function keepOneActiveAdmin(users: Collection<UserDoc>, user: UserDoc, what: string): Promise<void> {
	if (user.role !== "ADMIN" || user.state !== "NORMAL") return;
	const others = await users.count({ role: "ADMIN", state: "NORMAL", _id: { $ne: user._id } });
	if (others === 0) throw failedPrecondition(`cannot ${what} the last active admin`);
}
