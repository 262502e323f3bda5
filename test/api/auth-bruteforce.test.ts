import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { authHeaders, signIn, signUp } from "../support/users.js";

let app: EmbeddedApp;

beforeAll(async () => {
	app = await startEmbeddedApp();
	await signUp(app.baseUrl, "alice");
	await signUp(app.baseUrl, "bob");
});

afterAll(async () => {
	await app.stop();
});

const ATTEMPTS = 1000;
// Like a client that keeps a few connections busy; argon2 costs ~25 ms of a core per attempt.
const IN_FLIGHT = 8;

test("1,000 wrong passwords are each refused, and the service keeps answering others meanwhile", async () => {
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
			const key = `${res.status} ${body.code} ${body.message}`;
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

	expect([...codes.entries()]).toEqual([["400 3 unmatched username and password", ATTEMPTS]]);
	expect(answered.length).toBeGreaterThan(0);
	expect(answered.every(status => status === 200)).toBe(true);
	expect((await signIn(app.baseUrl, "alice")).user.username).toBe("alice");
}, 180_000);
