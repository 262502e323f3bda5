import { randomBytes } from "node:crypto";
import { DuplicateKeyError, type Collection, type Doc } from "../../shared/store/document-store.js";

export interface SecretDoc extends Doc {
	value: string;
}

export const SECRETS = "auth_secrets";
const JWT_SECRET_ID = "jwt";

/**
 * The access-token signing key: JWT_SECRET when configured, else a random secret generated
 * once and kept in the auth store. Replicas starting together race to insert it; the loser
 * reads the winner's, so every replica and every restart signs with the same key.
 */
export async function loadSigningKey(configured: string, secrets: Collection<SecretDoc>): Promise<Uint8Array> {
	if (configured !== "") return new TextEncoder().encode(configured);
	const existing = await secrets.findOne({ _id: JWT_SECRET_ID });
	if (existing) return Buffer.from(existing.value, "base64");
	const value = randomBytes(32).toString("base64");
	try {
		await secrets.insert({ _id: JWT_SECRET_ID, value });
		return Buffer.from(value, "base64");
	} catch (err) {
		if (!(err instanceof DuplicateKeyError)) throw err;
		const winner = await secrets.findOne({ _id: JWT_SECRET_ID });
		if (!winner) throw err;
		return Buffer.from(winner.value, "base64");
	}
}
