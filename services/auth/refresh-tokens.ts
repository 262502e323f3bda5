import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Collection, Doc } from "../../shared/store/document-store.js";

/**
 * Refresh tokens (contract 2.1): opaque random strings, stored only as SHA-256 hashes, each
 * usable once, grouped in families that start at a sign-in.
 */
export interface RefreshTokenDoc extends Doc {
	/** `_id` is the token's hash. */
	familyId: string;
	userId: string;
	createTime: number;
	expiresAt: number;
	/** When the token was exchanged for its successor; a rotated token presented again is a reuse. */
	rotatedAt?: number;
}

export const REFRESH_TOKENS = "auth_refresh_tokens";
export const REFRESH_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const REUSE_GRACE_MS = 5_000;

// 32 random bytes in base64url: 43 characters.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface IssuedRefreshToken {
	token: string;
	familyId: string;
	expiresAt: number;
}

export type RotationResult =
	| { kind: "rotated"; userId: string; next: IssuedRefreshToken }
	/** A rotated token presented again within the grace: refused, the family kept, no cookie change. */
	| { kind: "grace" }
	/** Malformed, unknown, expired, revoked, or reused after the grace: then its family is revoked and named. */
	| { kind: "invalid"; revokedFamilyId?: string };

function hashToken(token: string): string {
	return createHash("sha256").update(token).digest("hex");
}

async function issue(tokens: Collection<RefreshTokenDoc>, userId: string, familyId: string, now: number): Promise<IssuedRefreshToken> {
	const token = randomBytes(32).toString("base64url");
	const expiresAt = now + REFRESH_TTL_MS;
	await tokens.insert({ _id: hashToken(token), familyId, userId, createTime: now, expiresAt });
	return { token, familyId, expiresAt };
}

// Rotated tokens are kept until they expire, for reuse detection; a user's expired ones go
// whenever that user signs in or refreshes.
function dropExpired(tokens: Collection<RefreshTokenDoc>, userId: string, now: number): Promise<number> {
	return tokens.remove({ userId, expiresAt: { $lte: now } }, { multi: true });
}

/** A sign-in: a new family with its first token. */
export async function startFamily(tokens: Collection<RefreshTokenDoc>, userId: string, now: number): Promise<IssuedRefreshToken> {
	await dropExpired(tokens, userId, now);
	return issue(tokens, userId, randomUUID(), now);
}

export async function rotate(tokens: Collection<RefreshTokenDoc>, token: string | undefined, now: number): Promise<RotationResult> {
	if (token === undefined || !TOKEN_PATTERN.test(token)) return { kind: "invalid" };
	const id = hashToken(token);
	// Marking the token rotated is the atomic step: of two concurrent refreshes one wins.
	const current = await tokens.findOneAndUpdate({ _id: id, rotatedAt: { $exists: false }, expiresAt: { $gt: now } }, { $set: { rotatedAt: now } });
	if (current) {
		await dropExpired(tokens, current.userId, now);
		return { kind: "rotated", userId: current.userId, next: await issue(tokens, current.userId, current.familyId, now) };
	}
	const seen = await tokens.findOne({ _id: id });
	if (!seen || seen.rotatedAt === undefined) return { kind: "invalid" };
	if (now - seen.rotatedAt <= REUSE_GRACE_MS) return { kind: "grace" };
	await revokeFamily(tokens, seen.familyId);
	return { kind: "invalid", revokedFamilyId: seen.familyId };
}

/** The user of a current (unrotated, unexpired, unrevoked) token, without using it up. */
export async function userOfLiveToken(tokens: Collection<RefreshTokenDoc>, token: string | undefined, now: number): Promise<string | undefined> {
	if (token === undefined || !TOKEN_PATTERN.test(token)) return undefined;
	return (await tokens.findOne({ _id: hashToken(token), rotatedAt: { $exists: false }, expiresAt: { $gt: now } }))?.userId;
}

/** The family of a well-formed token, if it is still known. */
export async function familyOf(tokens: Collection<RefreshTokenDoc>, token: string | undefined): Promise<string | undefined> {
	if (token === undefined || !TOKEN_PATTERN.test(token)) return undefined;
	return (await tokens.findOne({ _id: hashToken(token) }))?.familyId;
}

export async function revokeFamily(tokens: Collection<RefreshTokenDoc>, familyId: string): Promise<void> {
	await tokens.remove({ familyId }, { multi: true });
}

/** Every family of the user, except `keepFamilyId` (the one a password change was made from); the ids of those revoked. */
export async function revokeUserFamilies(tokens: Collection<RefreshTokenDoc>, userId: string, keepFamilyId?: string): Promise<string[]> {
	const filter = keepFamilyId === undefined ? { userId } : { userId, familyId: { $ne: keepFamilyId } };
	const familyIds = new Set((await tokens.find(filter, { projection: { familyId: 1 } })).map(token => token.familyId));
	await tokens.remove(filter, { multi: true });
	return [...familyIds];
}
