import type { ChangeReaders, ChangeToCheck } from "../memos/memos.contract.js";
import type { SseHub } from "./sse-hub.js";
import { dataFrame, toSseEvent } from "./sse-wire.js";

/**
 * Feeds the changes this gateway hears (every gateway hears every change: the memos service
 * broadcasts them) to its live streams, each to the users who may read what it names when it
 * is sent. Changes that arrive while a check is out wait and go in the next one, so the memos
 * service is asked once per batch for every stream of the gateway, whatever the number of
 * changes or streams.
 */

/** Changes checked in one call. */
const BATCH = 100;
/** Changes waiting beyond this mean the checks cannot keep up: the streams are ended, their clients resync. */
const MAX_WAITING = 10_000;

export type ReadersOf = (changes: ChangeToCheck[], userIds: string[]) => Promise<ChangeReaders[]>;

export class SseFeed {
	private waiting: ChangeToCheck[] = [];
	private running = false;

	/** `lost` is told why changes could not be told; every stream has been ended then. */
	constructor(
		private readonly hub: SseHub,
		private readonly readersOf: ReadersOf,
		private readonly lost: (err: unknown) => void
	) {}

	push(change: ChangeToCheck): void {
		if (this.hub.size === 0) return;
		if (this.waiting.length >= MAX_WAITING) {
			this.waiting = [];
			this.fail(new Error(`more than ${MAX_WAITING} changes waiting for their read check`));
			return;
		}
		this.waiting.push(change);
		if (!this.running) void this.run();
	}

	private async run(): Promise<void> {
		this.running = true;
		try {
			while (this.waiting.length > 0) {
				const batch = this.waiting.splice(0, BATCH);
				const userIds = this.hub.userIds();
				if (userIds.length === 0) continue;
				try {
					const readers = await this.readersOf(batch, userIds);
					batch.forEach(({ event, change }, i) => {
						const told = toSseEvent(event, change);
						const allowed = readers[i];
						if (told !== undefined && allowed !== undefined) this.hub.send(dataFrame(told), allowed);
					});
				} catch (err) {
					// A client that missed a change must refetch: it does so when its stream reconnects.
					this.fail(err);
				}
			}
		} finally {
			this.running = false;
		}
	}

	private fail(err: unknown): void {
		this.hub.end(() => true);
		this.lost(err);
	}
}
