import type { EmbeddedApp } from "./embedded-app.js";

/** Moves the auth service's clock forward (token expiry, refresh grace, sign-in locks) instead of sleeping. */
export interface AuthClock {
	advance(ms: number): void;
}

/** Replaces the auth service's clock of `app` by real time plus an offset the test advances. */
export function shiftAuthClock(app: EmbeddedApp): AuthClock {
	let offsetMs = 0;
	const auth = app.node.broker.getLocalService("auth") as unknown as { clock: () => number };
	auth.clock = () => Date.now() + offsetMs;
	return {
		advance(ms: number): void {
			offsetMs += ms;
		}
	};
}
