import { createHash } from "node:crypto";
import { DuplicateKeyError, type Collection, type Doc } from "../../shared/store/document-store.js";

/**
 * Failed password sign-ins (contract 19, "Sign-in guessing"), counted in the document store so
 * that every auth replica sees the same counts. One record per username and one per client
 * address, keyed by a hash: what was typed as a username (sometimes a password) is never stored.
 */
export interface SignInAttemptsDoc extends Doc {
	/** Failures in the current window. */
	failures: number;
	/** Attempts are refused until then; 0 when not locked. */
	lockedUntil: number;
	/**
	 * When the window ends and the record is forgotten: 15 minutes after its first failure, or
	 * 15 minutes after its latest lock ends, so that the back-off keeps doubling while guessing
	 * goes on and starts from 30 s again only after a quiet quarter of an hour.
	 */
	expiresAt: number;
}

export const SIGN_IN_ATTEMPTS = "auth_sign_in_attempts";
export const ATTEMPT_WINDOW_MS = 15 * 60 * 1000;
export const USERNAME_FAILURE_LIMIT = 5;
export const ADDRESS_FAILURE_LIMIT = 100;
export const FIRST_LOCK_MS = 30_000;
export const MAX_LOCK_MS = 15 * 60 * 1000;
// Concurrent failures on other replicas may win the race to open a window; a few rounds settle it.
const MAX_ROUNDS = 5;

/** What a sign-in attempt is counted under: the username typed (trimmed) and the client address, when known. */
export interface AttemptSource {
	username: string;
	address: string | undefined;
}

interface Counter {
	id: string;
	limit: number;
}

function counterId(kind: "user" | "address", value: string): string {
	return `${kind}:${createHash("sha256").update(value).digest("hex")}`;
}

function countersOf(source: AttemptSource): Counter[] {
	const counters = [{ id: counterId("user", source.username), limit: USERNAME_FAILURE_LIMIT }];
	if (source.address !== undefined) counters.push({ id: counterId("address", source.address), limit: ADDRESS_FAILURE_LIMIT });
	return counters;
}

/** The lock after the `failures`-th failure of a window whose limit is `limit`: 30 s at the limit, doubling per failure after it, at most 15 minutes. */
export function lockMsAfter(failures: number, limit: number): number {
	if (failures < limit) return 0;
	return Math.min(FIRST_LOCK_MS * 2 ** Math.min(failures - limit, 16), MAX_LOCK_MS);
}

/** Milliseconds until the username and the address may try again; 0 when neither is locked. */
export async function lockedForMs(attempts: Collection<SignInAttemptsDoc>, source: AttemptSource, now: number): Promise<number> {
	const records = await attempts.find({ _id: { $in: countersOf(source).map(counter => counter.id) }, lockedUntil: { $gt: now } });
	return Math.max(0, ...records.map(record => record.lockedUntil - now));
}

/** One more failure in the counter's window, opening a new window when there is none or it is over. */
async function countFailure(attempts: Collection<SignInAttemptsDoc>, id: string, now: number): Promise<SignInAttemptsDoc> {
	const window = { failures: 1, lockedUntil: 0, expiresAt: now + ATTEMPT_WINDOW_MS };
	for (let round = 0; round < MAX_ROUNDS; round++) {
		const counted = await attempts.findOneAndUpdate({ _id: id, expiresAt: { $gt: now } }, { $inc: { failures: 1 } });
		if (counted) return counted;
		const reopened = await attempts.findOneAndUpdate({ _id: id, expiresAt: { $lte: now } }, { $set: window });
		if (reopened) return reopened;
		try {
			return await attempts.insert({ _id: id, ...window });
		} catch (err) {
			if (!(err instanceof DuplicateKeyError)) throw err;
		}
	}
	throw new Error(`sign-in attempts ${id}: the counting window kept changing under concurrent failures`);
}

/** A failed password sign-in: counted for the username and the address; either may become locked. */
export async function recordFailure(attempts: Collection<SignInAttemptsDoc>, source: AttemptSource, now: number): Promise<void> {
	for (const { id, limit } of countersOf(source)) {
		const record = await countFailure(attempts, id, now);
		const lockMs = lockMsAfter(record.failures, limit);
		if (lockMs === 0) continue;
		const lockedUntil = now + lockMs;
		// Only ever lengthened: a slower replica's shorter lock must not cut a longer one short.
		await attempts.update({ _id: id, lockedUntil: { $lt: lockedUntil } }, { $set: { lockedUntil, expiresAt: lockedUntil + ATTEMPT_WINDOW_MS } });
	}
	await attempts.remove({ expiresAt: { $lte: now } }, { multi: true });
}

/** A successful sign-in: the username's count starts again (the address keeps its own). */
export async function recordSuccess(attempts: Collection<SignInAttemptsDoc>, username: string): Promise<void> {
	await attempts.remove({ _id: counterId("user", username) });
}
