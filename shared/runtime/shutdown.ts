/**
 * A process's shutdown as its parts see it (issue 16.5): `stopping` turns readiness false at
 * SIGTERM, on the health port and the gateway's public port alike; `begin` runs each part's
 * stop-accepting step and `force`, at the SHUTDOWN_TIMEOUT_MS deadline, each part's
 * close-everything step, so no client can hold the process open.
 */
export class Shutdown {
	stopping = false;
	private readonly beginSteps: (() => Promise<void>)[] = [];
	private readonly forceSteps: (() => void)[] = [];

	/** `begin` runs when shutdown starts and resolves once the part has drained; `force` at the deadline. */
	register(begin: () => Promise<void>, force: () => void): void {
		this.beginSteps.push(begin);
		this.forceSteps.push(force);
	}

	/** Stops accepting everywhere; resolves when every part has drained (or was forced). */
	begin(): Promise<void> {
		this.stopping = true;
		return Promise.all(this.beginSteps.map(step => step())).then(() => undefined);
	}

	force(): void {
		for (const step of this.forceSteps) step();
	}
}
