import type { AnyActionRef } from "../../shared/contract.js";
import type { BodyLimit } from "./body-limits.js";

/**
 * One row of the gateway's route table: the HTTP side of an operation and the action that
 * serves it. The aliases of moleculer-web and the OpenAPI document are both made from
 * these rows, so they cannot drift apart.
 */

export type HttpMethod = "GET" | "HEAD" | "POST" | "PATCH" | "PUT" | "DELETE";

/**
 * Who may call an operation (contract 2.2):
 * - `anyone`: anonymous callers on every instance;
 * - `public-instance`: anonymous callers only when the ACCESS setting is PUBLIC;
 * - `signed-in`: a valid access token is required.
 */
export type Access = "anyone" | "public-instance" | "signed-in";

/** An operation answered by an action. */
interface ActionRoute extends RouteBase {
	/** The action serving it, from its service's contract. */
	action: AnyActionRef;
	eventStream?: undefined;
}

/**
 * An operation the gateway serves itself as a live stream of server-sent events
 * (`text/event-stream`, sse-hub.ts), fed by broker events: no action answers it.
 */
interface EventStreamRoute extends RouteBase {
	eventStream: true;
	action?: undefined;
}

export type RouteSpec = ActionRoute | EventStreamRoute;

interface RouteBase {
	/** The operation's name in the contract, e.g. `GetInstanceProfile`; unique. */
	operation: string;
	method: HttpMethod;
	/** Contract form: `/api/v1/memos/{memo}`; a custom method keeps its colon (`/api/v1/attachments:batchDelete`). */
	path: string;
	access: Access;
	/**
	 * Where the JSON body goes in the action's params (gRPC transcoding): `*` merges its
	 * fields, a name nests it under that field, absent means the operation takes no body.
	 */
	body?: "*" | string;
	/** The operation answers `Empty`: 200 with a zero-length body. */
	empty?: boolean;
	/**
	 * The operation ignores the Authorization header: an invalid token does not fail it and
	 * the caller is anonymous (contract 2.1: SignIn, RefreshToken, SignOut, GetSharedMemo).
	 */
	ignoresAccessToken?: boolean;
	/**
	 * The operation reads or sets the `memos_refresh` cookie: the gateway hands the cookie and
	 * whether the request came over TLS to the action.
	 */
	refreshCookie?: boolean;
	/** The operation is told the client's network address in `meta.clientAddress` (SignIn's throttle, contract 19). */
	clientAddress?: true;
	/** A failed authentication clears the refresh cookie too (GetCurrentUser, contract 2.3). */
	authFailureClearsRefreshCookie?: boolean;
	/**
	 * Dotted path of a base64 `bytes` field in the request (`audio.content`): the gateway
	 * decodes it and hands the bytes to the action as the call's stream (`ctx.stream`), with
	 * their count in the `$streamLength` param.
	 */
	bytesField?: string;
	/**
	 * A write that may safely run twice (it sets state, it does not add or take away): when a
	 * node fails mid-call, the call is sent again to another node. Reads (GET) always are.
	 */
	idempotent?: true;
	/**
	 * The request body is raw bytes of this media type, never read by the gateway: the request
	 * itself is the call's stream (`ctx.stream`), so its bytes flow with back-pressure and are
	 * not held in memory (tus PATCH). Exclusive with `body`.
	 */
	streamBody?: string;
	/** Request headers handed to the action in the `$headers` param, by lower-case name (tus speaks in headers). */
	requestHeaders?: readonly string[];
	/** Headers set on every response of the operation, errors included (`Tus-Resumable`). */
	responseHeaders?: Readonly<Record<string, string>>;
	/** Largest request body once decoded (body-limits.ts: 256 KiB when absent); beyond it, INVALID_ARGUMENT. */
	bodyLimit?: BodyLimit;
	summary: string;
}

/** Whether a failed call may be sent again to another node (issue 16.2); the route table is the one place that says. */
export function isIdempotent(spec: RouteSpec): boolean {
	return spec.method === "GET" || spec.method === "HEAD" || spec.idempotent === true;
}

/** `{memo}` → `:memo`, and a literal colon escaped for path-to-regexp 8. */
export function toAliasPath(contractPath: string): string {
	return contractPath
		.split("/")
		.map(segment => {
			const param = /^\{([A-Za-z][A-Za-z0-9_-]*)\}$/.exec(segment);
			if (param) return `:${param[1]}`;
			const custom = /^(\{[A-Za-z][A-Za-z0-9_-]*\}|[^{}:]*):([A-Za-z]+)$/.exec(segment);
			if (custom) return `${toAliasPath(custom[1] as string)}\\:${custom[2]}`;
			return segment;
		})
		.join("/");
}

/** The path parameters of a contract path, in order. */
export function pathParams(contractPath: string): string[] {
	return [...contractPath.matchAll(/\{([A-Za-z][A-Za-z0-9_-]*)\}/g)].map(m => m[1] as string);
}
