import { ServiceError, type GrpcCodeName } from "../../shared/errors.js";

/** The ServiceError `fn` throws; any other error propagates, and returning normally fails the test. */
export function thrownServiceError(fn: () => unknown): ServiceError {
	try {
		fn();
	} catch (err) {
		if (err instanceof ServiceError) return err;
		throw err;
	}
	throw new Error("expected a ServiceError");
}

/** The ServiceError `promise` rejects with; any other error propagates, and resolving fails the test. */
export async function rejectionOf(promise: Promise<unknown>): Promise<ServiceError> {
	try {
		await promise;
	} catch (err) {
		if (err instanceof ServiceError) return err;
		throw err;
	}
	throw new Error("expected a ServiceError");
}

/** `fn` throws a ServiceError of `type` whose message contains every fragment. */
export function expectServiceError(fn: () => unknown, type: GrpcCodeName, ...fragments: string[]): ServiceError {
	const err = thrownServiceError(fn);
	expect(err.type).toBe(type);
	for (const fragment of fragments) expect(err.message).toContain(fragment);
	return err;
}

/** `fn` throws an INVALID_ARGUMENT ServiceError whose message contains every fragment. */
export function expectInvalidArgument(fn: () => unknown, ...fragments: string[]): ServiceError {
	return expectServiceError(fn, "INVALID_ARGUMENT", ...fragments);
}

/** The gRPC code name of the ServiceError `fn` throws, or "OK" when it returns. */
export function codeOf(fn: () => unknown): string {
	try {
		fn();
	} catch (err) {
		if (err instanceof ServiceError) return String(err.type);
		throw err;
	}
	return "OK";
}
