import type { Context } from "moleculer";
import type { Caller, RequestMeta } from "../../shared/caller.js";
import { call } from "../../shared/contract.js";
import { unauthenticated } from "../../shared/errors.js";
import { IDEMPOTENT_RETRIES } from "../../shared/runtime/call-failures.js";
import { ACCESS_TOKEN_MAX_LENGTH, authActions } from "../auth/auth.contract.js";

/** `Bearer <token>`, the scheme in any case (contract 2.1); one token, nothing after it. */
const BEARER = /^bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * The caller of an `Authorization` header, verified by the auth service (contract 2.1): any
 * other scheme, a malformed or oversized token, or one the auth service refuses is UNAUTHENTICATED.
 */
export async function callerOfAuthorization(ctx: Context<unknown, RequestMeta>, header: string): Promise<Caller> {
	const token = bearerToken(header);
	if (token === undefined || token.length > ACCESS_TOKEN_MAX_LENGTH) throw unauthenticated("invalid access token");
	// A read: another auth node may answer when the first fails mid-call.
	return call(ctx, authActions.verifyAccessToken, { token }, { retries: IDEMPOTENT_RETRIES });
}

/** The token of a `Bearer` header, or undefined for any other. */
export function bearerToken(header: string | undefined): string | undefined {
	return header === undefined ? undefined : BEARER.exec(header)?.[1];
}
