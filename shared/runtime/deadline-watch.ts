/** A deadline being watched: when it falls due (performance.now() milliseconds), and what then. */
export interface Deadline {
	readonly due: number;
	readonly expire: () => void;
}

/**
 * Deadlines watched by one timer, for things that nearly always end long before theirs (calls
 * and their time-outs). A Node timer each cost every call an insertion into the timer lists and
 * a removal; and as calls seldom overlap, the list of their duration emptied each time, so each
 * call also created and dropped that list and rescheduled libuv's timer. Here a deadline is an
 * entry in a set: settling removes it, and the timer, armed for the earliest deadline it has
 * seen, fires, expires those due and is armed again for the earliest left. It holds the process
 * open only while deadlines are watched, as the per-call timers did.
 */
export class DeadlineWatch {
	private readonly watched = new Set<Deadline>();
	private timer: NodeJS.Timeout | undefined;
	/** When the timer fires; Infinity when it is not armed. */
	private armedFor = Infinity;

	/** `expire` runs once `ms` have passed, unless `settle` came first. */
	watch(ms: number, expire: () => void): Deadline {
		const deadline = { due: performance.now() + ms, expire };
		if (this.watched.size === 0) this.timer?.ref();
		this.watched.add(deadline);
		if (deadline.due < this.armedFor) this.arm(deadline.due);
		return deadline;
	}

	settle(deadline: Deadline): void {
		// The timer is left armed: when it fires with nothing due it is armed again or not at all.
		if (this.watched.delete(deadline) && this.watched.size === 0) this.timer?.unref();
	}

	private arm(due: number): void {
		clearTimeout(this.timer);
		this.armedFor = due;
		// Node fires a timer at whole milliseconds, and may fire it a fraction early.
		this.timer = setTimeout(() => this.fire(), Math.max(1, Math.ceil(due - performance.now())));
	}

	private fire(): void {
		this.armedFor = Infinity;
		const now = performance.now();
		const due: Deadline[] = [];
		let next = Infinity;
		for (const deadline of this.watched) {
			if (deadline.due <= now) due.push(deadline);
			else if (deadline.due < next) next = deadline.due;
		}
		for (const deadline of due) this.watched.delete(deadline);
		// A late timer finds several due: they expire in the order they fell due.
		due.sort((a, b) => a.due - b.due);
		if (next < Infinity) this.arm(next);
		else this.timer = undefined;
		for (const deadline of due) deadline.expire();
	}
}
