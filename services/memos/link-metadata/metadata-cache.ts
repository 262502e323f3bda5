/**
 * Results of link fetches (contract 7.12 allows caching successes for 24 hours and failures
 * for 60 seconds), bounded in size: the oldest entry goes first.
 */
export class MetadataCache<T> {
	private readonly entries = new Map<string, { expires: number; result: { ok: true; value: T } | { ok: false; message: string } }>();

	constructor(
		private readonly maxEntries = 1000,
		private readonly successTtlMs = 24 * 60 * 60 * 1000,
		private readonly failureTtlMs = 60 * 1000
	) {}

	get(key: string, now: number): { ok: true; value: T } | { ok: false; message: string } | undefined {
		const entry = this.entries.get(key);
		if (entry === undefined) return undefined;
		if (entry.expires <= now) {
			this.entries.delete(key);
			return undefined;
		}
		return entry.result;
	}

	success(key: string, value: T, now: number): void {
		this.put(key, { expires: now + this.successTtlMs, result: { ok: true, value } });
	}

	failure(key: string, message: string, now: number): void {
		this.put(key, { expires: now + this.failureTtlMs, result: { ok: false, message } });
	}

	private put(key: string, entry: { expires: number; result: { ok: true; value: T } | { ok: false; message: string } }): void {
		this.entries.delete(key);
		this.entries.set(key, entry);
		while (this.entries.size > this.maxEntries) {
			const oldest = this.entries.keys().next();
			if (oldest.done === true) break;
			this.entries.delete(oldest.value);
		}
	}
}
