import { SignJWT, jwtVerify } from "jose";
import { BoundedCache } from "../../shared/cache/bounded-cache.js";
import type { Caller } from "../../shared/caller.js";
import { ACCESS_TOKEN_MAX_LENGTH } from "./auth.contract.js";

/** Contract 2.1. */
export const ACCESS_TOKEN_TTL_MS = 15 * 60 * 1000;
const ISSUER = "memos";
const AUDIENCE = "user.access-token";
const TYPE = "access";
// Signed-in clients of one node at a time; a token's entry lives until the token expires.
const VERIFIED_TOKENS = 10_000;

export interface IssuedToken {
	token: string;
	expiresAt: number;
}

/** What a valid access token stands for: its user, and the session (refresh family) it was issued in. */
export interface AccessTokenClaims {
	userId: string;
	sessionId: string;
}

/** An access token of `user` bound to session `sessionId` (`sid`), so that revoking the session revokes the token (contract 19). */
export async function issueAccessToken(key: Uint8Array, user: Caller, sessionId: string, now: number): Promise<IssuedToken> {
	// JWT times are whole seconds; the expiry reported to the client is the token's own.
	const iat = Math.floor(now / 1000);
	const exp = iat + ACCESS_TOKEN_TTL_MS / 1000;
	const token = await new SignJWT({ type: TYPE, username: user.username, role: user.role, sid: sessionId })
		.setProtectedHeader({ alg: "HS256", typ: "JWT" })
		.setIssuer(ISSUER)
		.setAudience(AUDIENCE)
		.setSubject(user.id)
		.setIssuedAt(iat)
		.setExpirationTime(exp)
		.sign(key);
	return { token, expiresAt: exp * 1000 };
}

/** Access tokens found valid with one signing key, by their text: their claims and the expiry (epoch ms). */
export type VerifiedTokens = BoundedCache<string, { claims: AccessTokenClaims; expiresAt: number }>;

export function verifiedTokensCache(clock: () => number): VerifiedTokens {
	return new BoundedCache({ ttlMs: ACCESS_TOKEN_TTL_MS, maxEntries: VERIFIED_TOKENS, clock });
}

/**
 * The user (`sub`) and session (`sid`) of a valid access token, or null: wrong signature or
 * algorithm (`alg: none` included), expired, another issuer, audience or type, no session, or
 * not a JWT at all. Whether the session is still live is the caller's to check.
 * A token verified once is answered from `verified` until it expires: whether it is valid
 * depends only on the key and the time, and checking the signature on every request cost
 * about a twentieth of a signed-in request's CPU.
 */
export async function verifyAccessToken(key: Uint8Array, token: string, now: number, verified: VerifiedTokens): Promise<AccessTokenClaims | null> {
	if (token.length > ACCESS_TOKEN_MAX_LENGTH) return null;
	const known = verified.get(token);
	if (known !== undefined) return now < known.expiresAt ? known.claims : null;
	try {
		const { payload } = await jwtVerify(token, key, {
			algorithms: ["HS256"],
			issuer: ISSUER,
			audience: AUDIENCE,
			currentDate: new Date(now),
			requiredClaims: ["sub", "exp", "iat", "sid"]
		});
		if (payload.type !== TYPE || typeof payload.sub !== "string" || payload.sub === "" || typeof payload.sid !== "string" || payload.sid === "") return null;
		const claims = { userId: payload.sub, sessionId: payload.sid };
		const expiresAt = (payload.exp as number) * 1000;
		verified.set(token, { claims, expiresAt }, expiresAt - now);
		return claims;
	} catch {
		return null;
	}
}
