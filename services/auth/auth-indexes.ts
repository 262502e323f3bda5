import type { DocumentStore } from "../../shared/store/document-store.js";
import { IDENTITY_PROVIDERS, USER_LINKS } from "./idp-doc.js";
import { PERSONAL_ACCESS_TOKENS } from "./personal-access-tokens.js";
import { REFRESH_TOKENS } from "./refresh-tokens.js";
import { SIGN_IN_ATTEMPTS } from "./sign-in-attempts.js";
import { USERS } from "./user-doc.js";
import { USER_SETTINGS } from "./user-settings.js";
import { ensureWebhookIndexes } from "./webhooks/webhook-indexes.js";

/** The auth service's indexes: made at start on the embedded store, by `--migrate` on MongoDB. */
export async function ensureAuthIndexes(documents: DocumentStore): Promise<void> {
	const users = documents.collection(USERS);
	await users.ensureIndex({ fields: { username: 1 }, unique: true });
	// The first ADMIN (setupState) in creation order, ties by id.
	await users.ensureIndex({ fields: { role: 1, createTime: 1, _id: 1 } });
	await users.ensureIndex({ fields: { createTime: 1, _id: 1 } });
	const tokens = documents.collection(REFRESH_TOKENS);
	await tokens.ensureIndex({ fields: { familyId: 1 } });
	await tokens.ensureIndex({ fields: { userId: 1, expiresAt: 1 } });
	const links = documents.collection(USER_LINKS);
	await links.ensureIndex({ fields: { idpId: 1, identifier: 1 }, unique: true });
	// One linked identity per provider and user (contract 16); a user's links in list order.
	await links.ensureIndex({ fields: { userId: 1, idpId: 1 }, unique: true });
	await documents.collection(IDENTITY_PROVIDERS).ensureIndex({ fields: { createTime: 1, _id: 1 } });
	const pats = documents.collection(PERSONAL_ACCESS_TOKENS);
	await pats.ensureIndex({ fields: { tokenHash: 1 }, unique: true });
	await pats.ensureIndex({ fields: { userId: 1, createTime: -1, _id: -1 } });
	await documents.collection(USER_SETTINGS).ensureIndex({ fields: { userId: 1 } });
	await documents.collection(SIGN_IN_ATTEMPTS).ensureIndex({ fields: { expiresAt: 1 } });
	await ensureWebhookIndexes(documents);
}
