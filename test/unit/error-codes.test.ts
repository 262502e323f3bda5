import {
	aborted,
	alreadyExists,
	failedPrecondition,
	GRPC_CODES,
	internal,
	invalidArgument,
	isGrpcCodeName,
	notFound,
	permissionDenied,
	resourceExhausted,
	ServiceError,
	unauthenticated,
	unavailable
} from "../../shared/errors.js";

/** The gRPC codes and their HTTP statuses (contract 1.8), and the errors services raise with them. */

test("every code has the number and the HTTP status of contract 1.8", () => {
	expect(GRPC_CODES).toEqual({
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
	});
});

test("code names are the table's own keys only", () => {
	expect(isGrpcCodeName("NOT_FOUND")).toBe(true);
	expect(isGrpcCodeName("OK")).toBe(true);
	for (const value of ["not_found", "toString", "constructor", "", 5, null, undefined, { NOT_FOUND: 1 }, ["NOT_FOUND"]]) expect(isGrpcCodeName(value)).toBe(false);
});

test.each([
	[invalidArgument("bad"), "INVALID_ARGUMENT", 400, "bad"],
	[notFound("gone"), "NOT_FOUND", 404, "gone"],
	[alreadyExists("twice"), "ALREADY_EXISTS", 409, "twice"],
	[permissionDenied("no"), "PERMISSION_DENIED", 403, "no"],
	[failedPrecondition("not now"), "FAILED_PRECONDITION", 400, "not now"],
	[unauthenticated(), "UNAUTHENTICATED", 401, "authentication required"],
	[unauthenticated("token expired"), "UNAUTHENTICATED", 401, "token expired"],
	[resourceExhausted("full"), "RESOURCE_EXHAUSTED", 429, "full"],
	[unavailable("down"), "UNAVAILABLE", 503, "down"],
	[internal(), "INTERNAL", 500, "internal error"],
	[internal("broken"), "INTERNAL", 500, "broken"]
])("%s is a ServiceError of type %s, HTTP %d", (err, type, http, message) => {
	expect(err).toBeInstanceOf(ServiceError);
	expect(err.name).toBe("ServiceError");
	expect(err.type).toBe(type);
	expect(err.code).toBe(http);
	expect(err.message).toBe(message);
});

test("each factory, called in the test, raises its code with its message or default", () => {
	const raised = [aborted("retry"), unauthenticated(), internal(), notFound("gone"), unavailable("down"), resourceExhausted("full")].map(err => ({ type: err.type, code: err.code, message: err.message }));
	expect(raised).toEqual([
		{ type: "ABORTED", code: 409, message: "retry" },
		{ type: "UNAUTHENTICATED", code: 401, message: "authentication required" },
		{ type: "INTERNAL", code: 500, message: "internal error" },
		{ type: "NOT_FOUND", code: 404, message: "gone" },
		{ type: "UNAVAILABLE", code: 503, message: "down" },
		{ type: "RESOURCE_EXHAUSTED", code: 429, message: "full" }
	]);
});
