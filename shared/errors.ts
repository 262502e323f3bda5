import { Errors } from "moleculer";

/**
 * gRPC status codes with the HTTP status the contract (1.8) maps each to.
 * This table is the only place the mapping lives.
 */
export const GRPC_CODES = {
	OK: { code: 0, http: 200 },
	CANCELLED: { code: 1, http: 499 },
	UNKNOWN: { code: 2, http: 500 },
	INVALID_ARGUMENT: { code: 3, http: 400 },
	DEADLINE_EXCEEDED: { code: 4, http: 504 },
	NOT_FOUND: { code: 5, http: 404 },
	ALREADY_EXISTS: { code: 6, http: 409 },
	PERMISSION_DENIED: { code: 7, http: 403 },
	RESOURCE_EXHAUSTED: { code: 8, http: 429 },
	FAILED_PRECONDITION: { code: 9, http: 400 },
	ABORTED: { code: 10, http: 409 },
	OUT_OF_RANGE: { code: 11, http: 400 },
	UNIMPLEMENTED: { code: 12, http: 501 },
	INTERNAL: { code: 13, http: 500 },
	UNAVAILABLE: { code: 14, http: 503 },
	DATA_LOSS: { code: 15, http: 500 },
	UNAUTHENTICATED: { code: 16, http: 401 }
} as const;

export type GrpcCodeName = keyof typeof GRPC_CODES;

export function isGrpcCodeName(value: unknown): value is GrpcCodeName {
	return typeof value === "string" && Object.hasOwn(GRPC_CODES, value);
}

/**
 * A failure a client is meant to see. It travels between nodes as a Moleculer error:
 * `type` carries the gRPC code name, `code` the HTTP status, so the gateway can map it
 * whichever node raised it.
 */
export class ServiceError extends Errors.MoleculerError {
	constructor(grpc: GrpcCodeName, message: string) {
		super(message, GRPC_CODES[grpc].http, grpc);
		this.name = "ServiceError";
	}
}

/** The HTTP statuses a protocol of its own may name for a failure instead of its code's (withHttpStatus). */
export const PROTOCOL_HTTP_STATUSES: ReadonlySet<number> = new Set([412, 413, 415]);

/**
 * A failure of a protocol that names its own HTTP status for it (tus 1.0: 412 for an unsupported
 * version, 413 for an upload over the size limit, 415 for bytes of another Content-Type). The
 * Status body keeps the contract's code; the gateway answers `http` instead of the code's status.
 */
export function withHttpStatus(error: ServiceError, http: 412 | 413 | 415): ServiceError {
	error.code = http;
	return error;
}

export const invalidArgument = (message: string) => new ServiceError("INVALID_ARGUMENT", message);
export const notFound = (message: string) => new ServiceError("NOT_FOUND", message);
export const alreadyExists = (message: string) => new ServiceError("ALREADY_EXISTS", message);
export const permissionDenied = (message: string) => new ServiceError("PERMISSION_DENIED", message);
export const failedPrecondition = (message: string) => new ServiceError("FAILED_PRECONDITION", message);
export const aborted = (message: string) => new ServiceError("ABORTED", message);
export const unauthenticated = (message = "authentication required") => new ServiceError("UNAUTHENTICATED", message);
export const resourceExhausted = (message: string) => new ServiceError("RESOURCE_EXHAUSTED", message);
export const unavailable = (message: string) => new ServiceError("UNAVAILABLE", message);
export const internal = (message = "internal error") => new ServiceError("INTERNAL", message);
