import { notFound } from "../../shared/errors.js";
import type { Collection } from "../../shared/store/document-store.js";
import type { AvatarImage } from "./auth.contract.js";
import { findByUsername } from "./user-access.js";
import type { UserDoc } from "./user-doc.js";
import { DATA_IMAGE } from "./user-input.js";

/**
 * The image behind `/file/users/{username}/avatar` (contract 4.8): the user's avatar when it
 * is stored as a data URI. Unknown users and avatars that are URLs (or unset) are NOT_FOUND.
 */
export async function avatarImage(users: Collection<UserDoc>, username: unknown): Promise<AvatarImage> {
	const user = await findByUsername(users, username);
	const match = DATA_IMAGE.exec(user.avatarUrl);
	if (match === null) throw notFound(`user ${user.username} has no stored avatar`);
	return { type: `image/${match[1]}`, bytes: Buffer.from(match[2], "base64") };
}
