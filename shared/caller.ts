/** What every service knows of the caller; the gateway sets it once in `ctx.meta`. */
export interface Caller {
	/** Internal user id (the token's `sub`). */
	id: string;
	username: string;
	role: "ADMIN" | "USER";
}

export interface RequestMeta {
	/** Null for anonymous callers. */
	user?: Caller | null;
	/** Epoch milliseconds fixed once per request (`now` in filters). */
	requestTime?: number;
}
