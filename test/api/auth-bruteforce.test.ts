import { shiftAuthClock, type AuthClock } from "../support/auth-clock.js";
import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { authHeaders, signIn, signUp } from "../support/users.js";

let app: EmbeddedApp;
let clock: AuthClock;

beforeAll(async () => {
	app = await startEmbeddedApp();
	clock = shiftAuthClock(app);
	await signUp(app.baseUrl, "alice");
	await signUp(app.baseUrl, "bob");
});

afterAll(async () => {
	await app.stop();
});

const ATTEMPTS = 1000;
// Like a client that keeps a few connections busy; argon2 costs ~25 ms of a core per attempt.
const IN_FLIGHT = 8;

test("1,000 wrong passwords from one client: 100 are checked, the rest throttled, and the service keeps answering others meanwhile", async () => {
	const bob = await signIn(app.baseUrl, "bob");
	const codes = new Map<string, number>();
	let next = 0;
	let done = false;
	const attacker = async () => {
		while (next < ATTEMPTS) {
			const i = next++;
			// Half against a real account, half against names that do not exist.
			const username = i % 2 === 0 ? "alice" : `ghost${i}`;
			const res = await fetch(`${app.baseUrl}/api/v1/auth/signin`, {
				method: "POST",
				headers: { "Content-Type": "application/json" },
				body: JSON.stringify({ passwordCredentials: { username, password: `guess-${i}` } })
			});
			const body = (await res.json()) as { code: number; message: string };
			const retryAfter = res.headers.get("Retry-After");
			const key = `${res.status} ${body.code} ${body.message}${retryAfter === null ? "" : " (Retry-After)"}`;
			codes.set(key, (codes.get(key) ?? 0) + 1);
		}
	};
	const flood = Promise.all(Array.from({ length: IN_FLIGHT }, attacker)).finally(() => {
		done = true;
	});

	// A legitimate user's requests keep succeeding while the flood runs.
	const answered: number[] = [];
	while (!done) {
		const [me, profile] = await Promise.all([
			fetch(`${app.baseUrl}/api/v1/auth/me`, { headers: authHeaders(bob) }),
			fetch(`${app.baseUrl}/api/v1/instance/profile`)
		]);
		answered.push(me.status, profile.status);
		await new Promise(resolve => setTimeout(resolve, 50));
	}
	await flood;

	const checked = codes.get("400 3 unmatched username and password") ?? 0;
	const throttled = codes.get("429 8 too many failed sign-ins, retry later (Retry-After)") ?? 0;
	expect(checked + throttled).toBe(ATTEMPTS);
	// The address locks at its 100th failure; attempts already past the check when it did still count.
	expect(checked).toBeGreaterThanOrEqual(100);
	expect(checked).toBeLessThan(100 + IN_FLIGHT);
	expect(answered.length).toBeGreaterThan(0);
	expect(answered.every(status => status === 200)).toBe(true);
	// Locked alice, and the address, get in again once the longest back-off (15 minutes) has passed.
	await expect(signIn(app.baseUrl, "alice")).rejects.toThrow(/answered 429/);
	clock.advance(15 * 60_000);
	expect((await signIn(app.baseUrl, "alice")).user.username).toBe("alice");
}, 180_000);
