import { SignJWT, jwtVerify } from "jose";
import type { Caller } from "../../shared/caller.js";
import { ACCESS_TOKEN_MAX_LENGTH } from "./auth.contract.js";

/** Contract 2.1. */
export const ACCESS_TOKEN_TTL_MS = 15 * 60 * 1000;
const ISSUER = "memos";
const AUDIENCE = "user.access-token";
const TYPE = "access";

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

/**
 * The user id (`sub`) of a valid access token, or null: wrong signature or algorithm
 * (`alg: none` included), expired, another issuer, audience or type, or not a JWT at all.
 */
export async function verifyAccessToken(key: Uint8Array, token: string, now: number): Promise<string | null> {
	if (token.length > ACCESS_TOKEN_MAX_LENGTH) return null;
	try {
		const { payload } = await jwtVerify(token, key, {
			algorithms: ["HS256"],
			issuer: ISSUER,
			audience: AUDIENCE,
			currentDate: new Date(now),
			requiredClaims: ["sub", "exp", "iat"]
		});
		if (payload.type !== TYPE || typeof payload.sub !== "string" || payload.sub === "") return null;
		return payload.sub;
	} catch {
		return null;
	}
}
