import { Errors } from "moleculer";
import { ServiceError, withHttpStatus } from "../../shared/errors.js";
import { StorageError } from "../../shared/store/document-store.js";
import { mapError } from "../../services/gateway/status.js";

describe("error to Status mapping (contract 1.8)", () => {
	test("service errors keep their gRPC code and message", () => {
		expect(mapError(new ServiceError("FAILED_PRECONDITION", "memo is archived"))).toEqual({
			http: 400,
			body: { code: 9, message: "memo is archived", details: [] },
			unexpected: false
		});
	});

	test("a protocol's own HTTP status (tus: 412, 413, 415) replaces the code's, here or across the transporter; the body keeps the code", () => {
		expect(mapError(withHttpStatus(new ServiceError("INVALID_ARGUMENT", "wrong type"), 415))).toEqual({
			http: 415,
			body: { code: 3, message: "wrong type", details: [] },
			unexpected: false
		});
		const remote = Object.assign(new Error("old version"), { name: "ServiceError", type: "FAILED_PRECONDITION", code: 412 });
		expect(mapError(remote).http).toBe(412);
		// Any other status a ServiceError carries is not the contract's: the code's status stands.
		const other = Object.assign(new Error("teapot"), { name: "ServiceError", type: "INVALID_ARGUMENT", code: 418 });
		expect(mapError(other).http).toBe(400);
	});

	test("a service error that crossed the transporter (plain Error with name and type) maps the same", () => {
		const remote = Object.assign(new Error("no such memo"), { name: "ServiceError", type: "NOT_FOUND", code: 404 });
		expect(mapError(remote).http).toBe(404);
		expect(mapError(remote).body).toEqual({ code: 5, message: "no such memo", details: [] });
	});

	test.each([
		["ALREADY_EXISTS", 409, 6],
		["PERMISSION_DENIED", 403, 7],
		["RESOURCE_EXHAUSTED", 429, 8],
		["UNAUTHENTICATED", 401, 16],
		["UNAVAILABLE", 503, 14],
		["CANCELLED", 499, 1],
		["DEADLINE_EXCEEDED", 504, 4]
	] as const)("%s answers HTTP %d with code %d", (name, http, code) => {
		const mapped = mapError(new ServiceError(name, "x"));
		expect(mapped.http).toBe(http);
		expect(mapped.body.code).toBe(code);
	});

	test("parameter validation failures are INVALID_ARGUMENT", () => {
		const err = new Errors.ValidationError("Parameters validation error!", "VALIDATION_ERROR", [{ field: "pageSize", message: "The 'pageSize' field must be a number." }]);
		expect(mapError(err).body).toEqual({ code: 3, message: "invalid argument: The 'pageSize' field must be a number.", details: [] });
	});

	test("an unreachable service is UNAVAILABLE", () => {
		expect(mapError(new Errors.ServiceNotFoundError({ action: "instance.getProfile" })).body.code).toBe(14);
		expect(mapError(new Errors.RequestTimeoutError({ action: "instance.getProfile", nodeID: "n1" })).http).toBe(503);
	});

	test.each([
		["a node gone mid-call", new Errors.RequestRejectedError({ action: "memos.getMemo", nodeID: "memos-1" })],
		["the transporter down", new Errors.BrokerDisconnectedError("Broker is disconnected!")],
		["no endpoint available", new Errors.ServiceNotAvailableError({ action: "memos.getMemo" })],
		["no time left to call", new Errors.RequestSkippedError({ action: "memos.getMemo", nodeID: "memos-1" })],
		["a retryable error Moleculer adds later", new Errors.MoleculerRetryableError("stream closed", 500, "STREAM_CLOSED")]
	])("%s is UNAVAILABLE with Retry-After, never INTERNAL", (_, err) => {
		expect(mapError(err)).toEqual({ http: 503, body: { code: 14, message: "service unavailable", details: [] }, unexpected: false, retryAfter: 1 });
	});

	test("a full disk is RESOURCE_EXHAUSTED and a failing one UNAVAILABLE, with a clear message, never INTERNAL; logged as ours", () => {
		const full = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28, syscall: "write" });
		expect(mapError(full)).toMatchObject({ http: 429, body: { code: 8, message: "storage is full: the change was not saved" }, unexpected: true });
		// As it arrives from another node: Moleculer keeps the name, message and code.
		const remote = Object.assign(new Error("EIO: i/o error, write"), { name: "Error", code: "EIO" });
		expect(mapError(remote)).toMatchObject({ http: 503, body: { code: 14 }, unexpected: true });
		// The document store's StorageError carries the same names.
		expect(mapError(new StorageError("EBUSY", "document store: database is locked"))).toMatchObject({ http: 503, body: { code: 14, message: "storage is busy: the change was not saved" }, retryAfter: 1 });
	});

	test("a full queue (bulkhead) is RESOURCE_EXHAUSTED with Retry-After", () => {
		expect(mapError(new Errors.QueueIsFullError({ action: "ai.transcribe", nodeID: "ai-1", size: 10, limit: 10 }))).toMatchObject({
			http: 429,
			body: { code: 8, message: "too many requests in flight, retry later" },
			retryAfter: 1
		});
	});

	test("anything else is INTERNAL with a generic message and no detail", () => {
		const mapped = mapError(new TypeError("Cannot read properties of undefined (reading 'secret')"));
		expect(mapped).toEqual({ http: 500, body: { code: 13, message: "internal error", details: [] }, unexpected: true });
		expect(mapError("a string").body.code).toBe(13);
		expect(mapError(null).body.code).toBe(13);
	});

	test("an error with another errno name or a numeric code (an HTTP status, an errno number) is no storage failure: INTERNAL", () => {
		expect(mapError(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }))).toEqual({ http: 500, body: { code: 13, message: "internal error", details: [] }, unexpected: true });
		expect(mapError(Object.assign(new Error("bad gateway"), { code: 500 })).body.code).toBe(13);
		expect(mapError(Object.assign(new Error("disk"), { code: 28 })).body.code).toBe(13);
	});

	test("an error of another kind whose type happens to be a gRPC code name is INTERNAL: its message is not shown", () => {
		const foreign = Object.assign(new Error("upstream said: token abc123 not found"), { type: "NOT_FOUND", code: 404 });
		expect(mapError(foreign)).toEqual({ http: 500, body: { code: 13, message: "internal error", details: [] }, unexpected: true });
		expect(mapError(new Errors.MoleculerError("denied by a library", 403, "PERMISSION_DENIED")).body).toEqual({ code: 13, message: "internal error", details: [] });
	});
});

describe("routing and framework failures (contract 1.8)", () => {
	test("a path parameter moleculer-web cannot percent-decode is INVALID_ARGUMENT (contract 19); its other bad requests stay unexpected", () => {
		const undecodable = Object.assign(new Error("Bad request"), { name: "BadRequestError", type: "UNABLE_DECODE_PARAM" });
		expect(mapError(undecodable)).toEqual({ http: 400, body: { code: 3, message: "a path segment is not valid percent-encoded UTF-8", details: [] }, unexpected: false });
		expect(mapError(Object.assign(new Error("Bad request"), { name: "BadRequestError", type: "OTHER" })).body.code).toBe(13);
	});

	test.each([
		["NotFoundError", 404, { code: 5, message: "Not Found", details: [] }],
		["ServiceUnavailableError", 503, { code: 14, message: "service unavailable", details: [] }],
		["RateLimitExceeded", 429, { code: 8, message: "rate limit exceeded", details: [] }]
	])("moleculer-web's %s answers HTTP %d", (name, http, body) => {
		const mapped = mapError(Object.assign(new Error("framework text"), { name }));
		expect(mapped.http).toBe(http);
		expect(mapped.body).toEqual(body);
		expect(mapped.unexpected).toBe(false);
	});

	test("a validation failure without a message, and a service error without one, still answer their codes", () => {
		expect(mapError({ type: "VALIDATION_ERROR", data: [{ field: "x" }] }).body).toEqual({ code: 3, message: "invalid argument", details: [] });
		expect(mapError({ type: "VALIDATION_ERROR" }).body.message).toBe("invalid argument");
		expect(mapError({ name: "ServiceError", type: "NOT_FOUND" }).body).toEqual({ code: 5, message: "", details: [] });
	});
});
