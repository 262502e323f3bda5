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

export async function issueAccessToken(key: Uint8Array, user: Caller, now: number): Promise<IssuedToken> {
	// JWT times are whole seconds; the expiry reported to the client is the token's own.
	const iat = Math.floor(now / 1000);
	const exp = iat + ACCESS_TOKEN_TTL_MS / 1000;
	const token = await new SignJWT({ type: TYPE, username: user.username, role: user.role })
		.setProtectedHeader({ alg: "HS256", typ: "JWT" })
		.setIssuer(ISSUER)
		.setAudience(AUDIENCE)
		.setSubject(user.id)
		.setIssuedAt(iat)
		.setExpirationTime(exp)
		.sign(key);
	return { token, expiresAt: exp * 1000 };
}

/** Access tokens found valid with one signing key, by their text: the user id (`sub`) and the expiry (epoch ms). */
export type VerifiedTokens = BoundedCache<string, { userId: string; expiresAt: number }>;

export function verifiedTokensCache(clock: () => number): VerifiedTokens {
	return new BoundedCache({ ttlMs: ACCESS_TOKEN_TTL_MS, maxEntries: VERIFIED_TOKENS, clock });
}

/**
 * The user id (`sub`) of a valid access token, or null: wrong signature or algorithm
 * (`alg: none` included), expired, another issuer, audience or type, or not a JWT at all.
 * A token verified once is answered from `verified` until it expires: whether it is valid
 * depends only on the key and the time, and checking the signature on every request cost
 * about a twentieth of a signed-in request's CPU.
 */
export async function verifyAccessToken(key: Uint8Array, token: string, now: number, verified: VerifiedTokens): Promise<string | null> {
	if (token.length > ACCESS_TOKEN_MAX_LENGTH) return null;
	const known = verified.get(token);
	if (known !== undefined) return now < known.expiresAt ? known.userId : null;
	try {
		const { payload } = await jwtVerify(token, key, {
			algorithms: ["HS256"],
			issuer: ISSUER,
			audience: AUDIENCE,
			currentDate: new Date(now),
			requiredClaims: ["sub", "exp", "iat"]
		});
		if (payload.type !== TYPE || typeof payload.sub !== "string" || payload.sub === "") return null;
		const expiresAt = (payload.exp as number) * 1000;
		verified.set(token, { userId: payload.sub, expiresAt }, expiresAt - now);
		return payload.sub;
	} catch {
		return null;
	}
}
