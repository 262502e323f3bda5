import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import type { Collection } from "../../shared/store/document-store.js";
import {
	ATTEMPT_WINDOW_MS,
	SIGN_IN_ATTEMPTS,
	lockMsAfter,
	lockedForMs,
	recordFailure,
	recordSuccess,
	type AttemptSource,
	type SignInAttemptsDoc
} from "../../services/auth/sign-in-attempts.js";

let store: SqliteDocumentStore;
let attempts: Collection<SignInAttemptsDoc>;
const T0 = Date.UTC(2026, 0, 1);
const alice: AttemptSource = { username: "alice", address: "192.0.2.1" };

beforeEach(() => {
	store = new SqliteDocumentStore({ dir: null });
	attempts = store.collection<SignInAttemptsDoc>(SIGN_IN_ATTEMPTS);
});

afterEach(async () => {
	await store.close();
});

async function fail(source: AttemptSource, times: number, at: number): Promise<void> {
	for (let i = 0; i < times; i++) await recordFailure(attempts, source, at);
}

describe("the back-off (contract 19)", () => {
	test("starts at 30 s on the limit, doubles per further failure, and stops at 15 minutes", () => {
		expect([1, 4].map(n => lockMsAfter(n, 5))).toEqual([0, 0]);
		expect([5, 6, 7, 8, 9, 10, 11, 50].map(n => lockMsAfter(n, 5) / 1000)).toEqual([30, 60, 120, 240, 480, 900, 900, 900]);
		expect([99, 100, 101].map(n => lockMsAfter(n, 100) / 1000)).toEqual([0, 30, 60]);
	});

	test("4 failures lock nothing; the 5th locks the username for 30 s", async () => {
		await fail(alice, 4, T0);
		expect(await lockedForMs(attempts, alice, T0)).toBe(0);
		await fail(alice, 1, T0);
		expect(await lockedForMs(attempts, alice, T0)).toBe(30_000);
		expect(await lockedForMs(attempts, alice, T0 + 29_999)).toBe(1);
		expect(await lockedForMs(attempts, alice, T0 + 30_000)).toBe(0);
		// The same name from elsewhere is locked too; another name from the same address is not.
		expect(await lockedForMs(attempts, { username: "alice", address: "198.51.100.7" }, T0)).toBe(30_000);
		expect(await lockedForMs(attempts, { username: "bob", address: "192.0.2.1" }, T0)).toBe(0);
	});

	test("each failure after a lock has passed doubles the next lock", async () => {
		await fail(alice, 5, T0);
		let at = T0;
		for (const seconds of [60, 120, 240, 480, 900, 900]) {
			at += (await lockedForMs(attempts, alice, at)) + 1;
			await fail(alice, 1, at);
			expect(await lockedForMs(attempts, alice, at)).toBe(seconds * 1000);
		}
	});

	test("a lock is never shortened by a failure counted late", async () => {
		await fail(alice, 6, T0);
		expect(await lockedForMs(attempts, alice, T0)).toBe(60_000);
		// A replica whose clock lags counts the 7th failure (120 s from its "now"): the lock keeps its later end.
		await fail(alice, 1, T0 - 100_000);
		expect(await lockedForMs(attempts, alice, T0)).toBe(60_000);
	});
});

describe("the 15-minute window", () => {
	test("failures spread over more than 15 minutes lock nothing", async () => {
		await fail(alice, 4, T0);
		await fail(alice, 4, T0 + ATTEMPT_WINDOW_MS);
		expect(await lockedForMs(attempts, alice, T0 + ATTEMPT_WINDOW_MS)).toBe(0);
	});

	test("5 failures within the window lock, the last one just inside it", async () => {
		await fail(alice, 4, T0);
		await fail(alice, 1, T0 + ATTEMPT_WINDOW_MS - 1);
		expect(await lockedForMs(attempts, alice, T0 + ATTEMPT_WINDOW_MS - 1)).toBe(30_000);
	});

	test("the back-off is remembered until 15 minutes after the last lock ends", async () => {
		await fail(alice, 5, T0);
		const lockEnd = T0 + 30_000;
		await fail(alice, 1, lockEnd + ATTEMPT_WINDOW_MS - 1);
		expect(await lockedForMs(attempts, alice, lockEnd + ATTEMPT_WINDOW_MS - 1)).toBe(60_000);
	});

	test("a new window starts the back-off again at 30 s, and expired records are removed", async () => {
		await fail(alice, 7, T0);
		const later = T0 + 120_000 + ATTEMPT_WINDOW_MS;
		await fail({ username: "bob", address: undefined }, 1, later);
		expect(await attempts.count({})).toBe(1);
		await fail(alice, 5, later);
		expect(await lockedForMs(attempts, alice, later)).toBe(30_000);
	});
});

describe("per address and after a success", () => {
	test("100 failures from one address lock every username from it", async () => {
		for (let i = 0; i < 99; i++) await recordFailure(attempts, { username: `name${i}`, address: "203.0.113.9" }, T0);
		expect(await lockedForMs(attempts, { username: "carol", address: "203.0.113.9" }, T0)).toBe(0);
		await recordFailure(attempts, { username: "name99", address: "203.0.113.9" }, T0);
		expect(await lockedForMs(attempts, { username: "carol", address: "203.0.113.9" }, T0)).toBe(30_000);
		expect(await lockedForMs(attempts, { username: "carol", address: "203.0.113.10" }, T0)).toBe(0);
	});

	test("a success resets the username's count but not the address's", async () => {
		await fail(alice, 4, T0);
		await recordSuccess(attempts, "alice");
		await fail(alice, 4, T0);
		expect(await lockedForMs(attempts, alice, T0)).toBe(0);
		expect(await attempts.findOne({ failures: 8 })).not.toBeNull();
	});

	test("keeps no username or address in the store", async () => {
		await fail(alice, 1, T0);
		const stored = JSON.stringify(await attempts.find({}));
		expect(stored).not.toContain("alice");
		expect(stored).not.toContain("192.0.2.1");
	});
});
