import { decodeJwt } from "jose";
import type { Context } from "moleculer";
import { BoundedCache } from "../../shared/cache/bounded-cache.js";
import type { Caller, RequestMeta } from "../../shared/caller.js";
import { call } from "../../shared/contract.js";
import { unauthenticated } from "../../shared/errors.js";
import { IDEMPOTENT_RETRIES } from "../../shared/runtime/call-failures.js";
import { ACCESS_TOKEN_MAX_LENGTH, authActions } from "../auth/auth.contract.js";

/** `Bearer <token>`, the scheme in any case (contract 2.1); one token, nothing after it. */
const BEARER = /^bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * How long the gateway answers an access token with the caller the auth service gave for it,
 * without asking again. Revocations and user changes reach this node's gateway through events
 * (VouchedCallers.forget), at once; this bound is for an event lost between nodes, within the
 * contract's 3 s (19, "Revocation") on top of the auth service's own 2 s.
 */
export const VOUCHED_CALLER_TTL_MS = 500;
const VOUCHED_CALLERS = 10_000;

/**
 * Callers of access tokens the auth service verified, by token. Asking it costs every signed-in
 * request a call through the broker, about a tenth of a cached ListMemos' CPU. Only JWT access
 * tokens are kept, never past their expiry; personal access tokens are asked every time (their
 * use is recorded by the auth service). A verification that began before `forget` is not kept.
 */
export class VouchedCallers {
	private readonly callers: BoundedCache<string, Caller>;
	private generation = 0;

	/** `clock`: epoch ms, the auth service's time (tests move both). */
	constructor(private readonly clock: () => number) {
		this.callers = new BoundedCache({ ttlMs: VOUCHED_CALLER_TTL_MS, maxEntries: VOUCHED_CALLERS, clock });
	}

	/** callerOfAuthorization, answered from what the auth service said of the same token a moment ago. */
	async callerOf(ctx: Context<unknown, RequestMeta>, header: string): Promise<Caller> {
		const token = tokenOf(header);
		const known = this.callers.get(token);
		if (known !== undefined) return known;
		const generation = this.generation;
		const caller = await verified(ctx, token);
		const ttlMs = Math.min(VOUCHED_CALLER_TTL_MS, expiryOf(token) - this.clock());
		if (generation === this.generation && ttlMs > 0) this.callers.set(token, Object.freeze(caller), ttlMs);
		return caller;
	}

	/** A session was revoked or a user changed: nothing vouched for before is answered again. */
	forget(): void {
		this.generation += 1;
		this.callers.invalidate();
	}
}

/**
 * The caller of an `Authorization` header, verified by the auth service (contract 2.1): any
 * other scheme, a malformed or oversized token, or one the auth service refuses is UNAUTHENTICATED.
 */
export function callerOfAuthorization(ctx: Context<unknown, RequestMeta>, header: string): Promise<Caller> {
	return verified(ctx, tokenOf(header));
}

function tokenOf(header: string): string {
	const token = bearerToken(header);
	if (token === undefined || token.length > ACCESS_TOKEN_MAX_LENGTH) throw unauthenticated("invalid access token");
	return token;
}

function verified(ctx: Context<unknown, RequestMeta>, token: string): Promise<Caller> {
	// A read: another auth node may answer when the first fails mid-call.
	return call(ctx, authActions.verifyAccessToken, { token }, { retries: IDEMPOTENT_RETRIES });
}

/** The `exp` (epoch ms) of a token the auth service accepted, read without checking it again; 0 when it is no JWT with one (a personal access token). */
function expiryOf(token: string): number {
	try {
		const { exp } = decodeJwt(token);
		return typeof exp === "number" ? exp * 1000 : 0;
	} catch {
		return 0;
	}
}

/** The token of a `Bearer` header, or undefined for any other. */
export function bearerToken(header: string | undefined): string | undefined {
	return header === undefined ? undefined : BEARER.exec(header)?.[1];
}
