import { invalidArgument } from "./errors.js";
import { snakeName } from "./request-message.js";

export interface UpdateMaskOptions {
	/** A missing or empty mask is INVALID_ARGUMENT (every Update* except UpdateInstanceSetting). */
	required?: boolean;
	/** Dotted paths such as `general_setting.disallow_user_registration` may be named. */
	allowNested?: boolean;
}

// One path segment in lowerCamelCase or snake_case; anything else cannot name a proto field.
const SEGMENT = /^[a-z][a-zA-Z0-9_]*$/;

/**
 * The `updateMask` query parameter (contract 1.6) as snake_case paths in the order first named,
 * each one of `accepted` (given in snake_case). Returns [] for an absent or empty optional mask.
 */
export function parseUpdateMask(
	raw: string | undefined,
	accepted: readonly string[],
	options: UpdateMaskOptions = {}
): string[] {
	const mask = raw?.trim() ?? "";
	if (mask === "") {
		if (options.required === true) throw invalidArgument("updateMask is required");
		return [];
	}
	const paths = new Set<string>();
	for (const written of mask.split(",").map((path) => path.trim())) {
		const segments = written.split(".");
		if (segments.length > 1 && options.allowNested !== true) {
			throw invalidArgument(`updateMask path "${written}": nested paths are not accepted here`);
		}
		if (!segments.every((segment) => SEGMENT.test(segment))) {
			throw invalidArgument(`updateMask path "${written}" is not a field path`);
		}
		const path = segments.map(snakeName).join(".");
		if (!accepted.includes(path)) {
			throw invalidArgument(`updateMask path "${written}" is not updatable; accepted: ${accepted.join(", ")}`);
		}
		paths.add(path);
	}
	return [...paths];
}
