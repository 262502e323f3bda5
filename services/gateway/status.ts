import { GRPC_CODES, PROTOCOL_HTTP_STATUSES, isGrpcCodeName, type GrpcCodeName } from "../../shared/errors.js";
import { BROKER_FAILURES } from "../../shared/runtime/call-failures.js";

/** The contract's error body (1.8). */
export interface StatusBody {
	code: number;
	message: string;
	details: [];
}

export interface MappedError {
	http: number;
	body: StatusBody;
	/** True when the cause is ours, not the client's: it is logged, never shown. */
	unexpected: boolean;
	/** Seconds for the `Retry-After` header: the failure is transient (UNAVAILABLE, RESOURCE_EXHAUSTED). */
	retryAfter?: number;
}

type ErrorLike = { name?: unknown; type?: unknown; code?: unknown; message?: unknown; data?: unknown; status?: unknown; retryable?: unknown };

/** A node lost or a queue full passes within about a second (fail-over, issue 16). */
const RETRY_AFTER_SECONDS = 1;
const TRANSIENT: ReadonlySet<GrpcCodeName> = new Set(["UNAVAILABLE", "RESOURCE_EXHAUSTED"]);

function status(grpc: GrpcCodeName, message: string, unexpected = false): MappedError {
	const { code, http } = GRPC_CODES[grpc];
	return { http, body: { code, message, details: [] }, unexpected, ...(TRANSIENT.has(grpc) ? { retryAfter: RETRY_AFTER_SECONDS } : {}) };
}

/** Moleculer's parameter validator reports the first failing field. */
function validationMessage(data: unknown): string {
	const first = Array.isArray(data) ? (data[0] as { message?: unknown } | undefined) : undefined;
	return typeof first?.message === "string" ? `invalid argument: ${first.message}` : "invalid argument";
}

/**
 * The storage itself failing (the errno Node reports, or the document store's StorageError named
 * alike; Moleculer keeps the code when the error crosses the transporter): the write was not
 * saved, and the client is told why (issue 16.6).
 */
const STORAGE_FAILURES: Record<string, [GrpcCodeName, string]> = {
	ENOSPC: ["RESOURCE_EXHAUSTED", "storage is full: the change was not saved"],
	EDQUOT: ["RESOURCE_EXHAUSTED", "storage quota exceeded: the change was not saved"],
	EROFS: ["UNAVAILABLE", "storage is read-only: the change was not saved"],
	EBUSY: ["UNAVAILABLE", "storage is busy: the change was not saved"],
	EIO: ["UNAVAILABLE", "storage failed (input/output error or damaged data)"],
	// A database server mid-failover or out of reach: whether an interrupted write was kept is
	// unknown, so the message promises nothing; retrying an idempotent call is safe.
	ENOTCONN: ["UNAVAILABLE", "storage is unreachable (failover or network), retry later"],
	ETIMEDOUT: ["UNAVAILABLE", "storage did not answer in time, retry later"]
};

/** Maps any error raised while serving a request to the Status body and HTTP status. */
export function mapError(error: unknown): MappedError {
	const err = (typeof error === "object" && error !== null ? error : {}) as ErrorLike;
	const name = typeof err.name === "string" ? err.name : "";
	const type = typeof err.type === "string" ? err.type : "";

	if (name === "ServiceError" && isGrpcCodeName(type)) {
		const mapped = status(type, String(err.message ?? ""));
		return typeof err.code === "number" && PROTOCOL_HTTP_STATUSES.has(err.code) ? { ...mapped, http: err.code } : mapped;
	}
	if (type === "VALIDATION_ERROR") return status("INVALID_ARGUMENT", validationMessage(err.data));
	switch (name) {
		case "BadRequestError":
			// moleculer-web could not percent-decode a path parameter (contract 19); it raises this for nothing else on our routes.
			if (type === "UNABLE_DECODE_PARAM") return UNDECODABLE_PATH;
			break;
		case "NotFoundError":
			return NOT_FOUND;
		case "ServiceUnavailableError":
			return status("UNAVAILABLE", "service unavailable");
		case "RateLimitExceeded":
			return status("RESOURCE_EXHAUSTED", "rate limit exceeded");
	}
	// Ours, not the client's: logged as an error, though the message says what happened.
	if (typeof err.code === "string" && Object.hasOwn(STORAGE_FAILURES, err.code)) return status(...(STORAGE_FAILURES[err.code] as [GrpcCodeName, string]), true);
	const failure = BROKER_FAILURES[name];
	if (failure === "exhausted") return status("RESOURCE_EXHAUSTED", "too many requests in flight, retry later");
	// Moleculer marks its transient failures retryable, also those not named above.
	if (failure === "unavailable" || err.retryable === true) return status("UNAVAILABLE", "service unavailable");
	return status("INTERNAL", "internal error", true);
}

export const NOT_FOUND: MappedError = status("NOT_FOUND", "Not Found");

export const UNDECODABLE_PATH: MappedError = status("INVALID_ARGUMENT", "a path segment is not valid percent-encoded UTF-8");

export const METHOD_NOT_ALLOWED: MappedError = status("UNIMPLEMENTED", "Method Not Allowed");

/** A request that reached a gateway shutting down: another replica takes it. */
export const SHUTTING_DOWN: MappedError = status("UNAVAILABLE", "the server is shutting down, retry later");
