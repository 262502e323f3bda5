import { unauthenticated } from "./errors.js";

/** What every service knows of the caller; the gateway sets it once in `ctx.meta`. */
export interface Caller {
	/** Internal user id (the token's `sub`). */
	id: string;
	username: string;
	role: "ADMIN" | "USER";
	/** The session (refresh family) of the access token the request came with; absent for personal access tokens. */
	sessionId?: string;
}

export interface RequestMeta {
	/** Null for anonymous callers. */
	user?: Caller | null;
	/** Epoch milliseconds fixed once per request (`now` in filters). */
	requestTime?: number;
	/** The client's network address, for the operations whose route asks for it (sign-in throttling, contract 19). */
	clientAddress?: string;
}

/** The caller of an operation that needs one; anonymous callers are UNAUTHENTICATED (contract 2.2). */
export function signedIn(ctx: { meta: RequestMeta }): Caller {
	const caller = ctx.meta.user;
	if (!caller) throw unauthenticated();
	return caller;
}
