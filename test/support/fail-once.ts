/** One injected failure (issue 21's crash tests), shared by every stand-in made for it. */
export interface Injection {
	failed: boolean;
	/** Calls of the method to let through before the one that fails. */
	pass?: number;
}

/**
 * A stand-in for `real` whose next `method` call, counting every stand-in of `injection`,
 * fails once; `applied`: after the real call happened (an ambiguous write). `label` names
 * the object in the error.
 */
export function failingOnce<T extends object>(real: T, method: string, applied: boolean, injection: Injection, label: string): T {
	return new Proxy(real, {
		get(target, prop) {
			const value = Reflect.get(target, prop) as unknown;
			if (typeof value !== "function") return value;
			const bound = (value as (...args: unknown[]) => Promise<unknown>).bind(target);
			if (prop !== method || injection.failed) return bound;
			return async (...args: unknown[]) => {
				if ((injection.pass ?? 0) > 0) {
					injection.pass = (injection.pass ?? 0) - 1;
					return bound(...args);
				}
				injection.failed = true;
				if (applied) await bound(...args);
				throw new Error(`injected failure of ${label}.${method}`);
			};
		}
	});
}
