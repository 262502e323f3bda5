import type { Context, Service } from "moleculer";
import type { BoundedCache } from "./bounded-cache.js";

/**
 * The event handler that keeps a service's cache in step with the service owning the data:
 * spread into a schema's `events`, it drops the keys `keysOf` reads from the payload, or every
 * entry when it reads none (a payload that names no keys, or one from an older node).
 */
export function invalidateOn<S extends Service, K, P = unknown>(
	event: string,
	cacheOf: (service: S) => BoundedCache<K, unknown>,
	keysOf: (params: Partial<P>) => Iterable<K> | undefined = () => undefined
): Record<string, (this: S, ctx: Context<Partial<P>>) => void> {
	return {
		[event](this: S, ctx: Context<Partial<P>>) {
			cacheOf(this).invalidate(keysOf(ctx.params ?? {}));
		}
	};
}
