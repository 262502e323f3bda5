import type { Caller } from "../../shared/caller.js";

/** How stale the gateway's view of a user may be: an archived user is locked out within this. */
export const ACTIVE_USER_TTL_MS = 3_000;
const MAX_ENTRIES = 10_000;

interface Entry {
	caller: Caller | null;
	expires: number;
}

/**
 * Who is still NORMAL, with their current name and role, for verifying access tokens without a
 * store read per request. Entries live a few seconds; writes on this replica drop them at once.
 */
export class ActiveUsers {
	private readonly entries = new Map<string, Entry>();

	constructor(private readonly load: (id: string) => Promise<Caller | null>) {}

	async get(id: string, now: number): Promise<Caller | null> {
		const hit = this.entries.get(id);
		if (hit && hit.expires > now) return hit.caller;
		const caller = await this.load(id);
		if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
		this.entries.set(id, { caller, expires: now + ACTIVE_USER_TTL_MS });
		return caller;
	}

	forget(id: string): void {
		this.entries.delete(id);
	}
}
