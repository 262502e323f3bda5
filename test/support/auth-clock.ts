import type { EmbeddedApp } from "./embedded-app.js";

/** Moves the auth service's clock forward (token expiry, refresh grace, sign-in locks) instead of sleeping. */
export interface AuthClock {
	advance(ms: number): void;
}

/**
 * Replaces the auth service's clock of `app` by real time plus an offset the test advances, and
 * the gateway's, which keeps what the auth service said of an access token until its expiry.
 */
export function shiftAuthClock(app: EmbeddedApp): AuthClock {
	let offsetMs = 0;
	for (const name of ["auth", "gateway"]) {
		const service = app.node.broker.getLocalService(name) as unknown as { clock: () => number };
		service.clock = () => Date.now() + offsetMs;
	}
	return {
		advance(ms: number): void {
			offsetMs += ms;
		}
	};
}
