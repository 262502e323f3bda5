export interface BoundedCacheOptions {
	/** How long an entry serves reads unless `set`/`getOrLoad` is given another time for it; may be Infinity. */
	ttlMs: number;
	/** The most entries held; past it the entry written longest ago goes first. */
	maxEntries: number;
	/** Epoch milliseconds; tests inject their own to step through expiry. */
	clock?: () => number;
}

interface Entry<V> {
	value: V;
	expires: number;
}

/**
 * A map whose entries expire after a time and whose size is bounded: every cache of the
 * services is one of these, so none can grow without limit or serve stale data forever.
 * Caching a promise (`getOrLoad`) lets concurrent readers share one look-up, and a rejected
 * look-up is dropped so the next reader asks again.
 */
export class BoundedCache<K, V> {
	private readonly entries = new Map<K, Entry<V>>();
	private readonly ttlMs: number;
	private readonly maxEntries: number;
	private readonly clock: () => number;

	constructor(options: BoundedCacheOptions) {
		if (!(options.maxEntries >= 1)) throw new RangeError("a cache must hold at least one entry");
		this.ttlMs = options.ttlMs;
		this.maxEntries = options.maxEntries;
		this.clock = options.clock ?? Date.now;
	}

	get size(): number {
		return this.entries.size;
	}

	/** The live value under `key`, or undefined (an expired entry is dropped on the way). */
	get(key: K): V | undefined {
		const entry = this.entries.get(key);
		if (entry === undefined) return undefined;
		if (entry.expires <= this.clock()) {
			this.entries.delete(key);
			return undefined;
		}
		return entry.value;
	}

	set(key: K, value: V, ttlMs = this.ttlMs): void {
		this.entries.delete(key);
		this.entries.set(key, { value, expires: this.clock() + ttlMs });
		while (this.entries.size > this.maxEntries) {
			const oldest = this.entries.keys().next();
			if (oldest.done === true) break;
			this.entries.delete(oldest.value);
		}
	}

	/** The cached promise under `key`, or `load()`'s, kept until it expires or rejects. */
	getOrLoad<T>(this: BoundedCache<K, Promise<T>>, key: K, load: () => Promise<T>, ttlMs?: number): Promise<T> {
		const hit = this.get(key);
		if (hit !== undefined) return hit;
		const value = load();
		this.set(key, value, ttlMs);
		const entry = this.entries.get(key);
		value.catch(() => {
			if (this.entries.get(key) === entry) this.entries.delete(key);
		});
		return value;
	}

	delete(key: K): void {
		this.entries.delete(key);
	}

	/** Drops the entries of `keys`, or every entry when `keys` is undefined. */
	invalidate(keys?: Iterable<K>): void {
		if (keys === undefined) {
			this.entries.clear();
			return;
		}
		for (const key of keys) this.entries.delete(key);
	}
}
