import argon2 from "argon2";
import { invalidArgument } from "../../shared/errors.js";

/** bcrypt's limit, kept by upstream and by the contract (2.4). */
export const PASSWORD_MAX_BYTES = 72;
/** The shortest new password (contract 19): shorter ones fall to guessing within the sign-in throttle. */
export const PASSWORD_MIN_BYTES = 8;

// OWASP's argon2id parameters (19 MiB, 2 passes, 1 lane): about 25 ms per hash here.
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

// Hashing runs on libuv's pool of 4 threads, which file and crypto I/O share: a flood of
// sign-ins may use at most two of them, so everything else keeps running.
const MAX_CONCURRENT_HASHES = 2;
let running = 0;
const waiting: (() => void)[] = [];

async function limited<T>(work: () => Promise<T>): Promise<T> {
	if (running >= MAX_CONCURRENT_HASHES) await new Promise<void>(resolve => waiting.push(resolve));
	else running++;
	try {
		return await work();
	} finally {
		const next = waiting.shift();
		if (next) next();
		else running--;
	}
}

/** A password a user may set: 8 to 72 bytes of UTF-8 (contract 19). */
export function checkNewPassword(password: unknown, field: string): string {
	if (typeof password !== "string" || password === "") throw invalidArgument(`${field} is required`);
	const bytes = Buffer.byteLength(password, "utf8");
	if (bytes < PASSWORD_MIN_BYTES || bytes > PASSWORD_MAX_BYTES) throw invalidArgument(`${field} must be ${PASSWORD_MIN_BYTES} to ${PASSWORD_MAX_BYTES} bytes of UTF-8`);
	return password;
}

export function hashPassword(password: string): Promise<string> {
	return limited(() => argon2.hash(password, ARGON2_OPTIONS));
}

/**
 * A hash no password matches, for users created by SSO ("a random unusable password",
 * contract 2.3): it is not an argon2 hash, so it never verifies.
 */
export const UNUSABLE_PASSWORD_HASH = "!unusable";

// Verified when the user does not exist, so that an unknown username costs as much time as a
// wrong password and response times do not tell which usernames exist.
let dummyHash: Promise<string> | undefined;

/** False for a wrong password, a missing user (`hash` undefined) and an unusable password. */
export async function verifyPassword(hash: string | undefined, password: string): Promise<boolean> {
	if (hash === undefined) {
		dummyHash ??= hashPassword("dummy password");
		const dummy = await dummyHash;
		await limited(() => argon2.verify(dummy, password));
		return false;
	}
	if (!hash.startsWith("$argon2")) return false;
	return limited(async () => {
		try {
			return await argon2.verify(hash, password);
		} catch {
			return false;
		}
	});
}
