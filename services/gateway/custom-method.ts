import { notFound } from "../../shared/errors.js";

/** `{name}:{verb}` as the last part of a path (AIP-136); no id or username may hold a colon (shared/ids.ts). */
const CUSTOM_METHOD = /:[A-Za-z]*$/;

/**
 * A path parameter that ends in `:verb` reached a route only because no route has that verb:
 * it names an operation this service lacks, never a resource (contract 16: `users/alice:frob` is
 * not the user `alice:frob`). Routing misses come before authentication, and so does this.
 */
export function refuseUnknownCustomMethod(pathParams: Record<string, unknown> | undefined): void {
	for (const value of Object.values(pathParams ?? {})) {
		if (typeof value === "string" && CUSTOM_METHOD.test(value)) throw notFound("unknown operation");
	}
}
