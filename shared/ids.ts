import { randomUUID } from "node:crypto";
import { invalidArgument } from "./errors.js";

/** Client-chosen identifiers and usernames (contract 1.5). Every other module tests ids against this one. */
export const ID_PATTERN = /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,34}[a-zA-Z0-9])?$/;

const BASE57_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const BASE57 = BigInt(BASE57_ALPHABET.length);
// 57^22 is the smallest power of 57 above 2^128, so every UUID fits in 22 digits.
const BASE57_LENGTH = 22;

/** Kinds of resource whose id a client may choose or leave for the server to generate. */
export type IdKind = "memo" | "attachment" | "identity-provider" | "space";

/**
 * Trims a client-chosen id and checks it against ID_PATTERN. Returns "" when the client
 * left it empty, which callers read as "generate one".
 */
export function validateClientId(raw: string, field: string): string {
	const id = raw.trim();
	if (id === "" || ID_PATTERN.test(id)) return id;
	throw invalidArgument(
		`${field} must be 1-36 letters, digits or hyphens, starting and ending with a letter or digit`
	);
}

/**
 * The 128-bit value of a UUID in base57, most significant digit first, left-padded with
 * the alphabet's first character: the encoding upstream uses (lithammer/shortuuid v4),
 * so ids look the same as the ones upstream generates.
 */
export function uuidToBase57(uuid: string): string {
	let rest = BigInt(`0x${uuid.replaceAll("-", "")}`);
	let digits = "";
	while (rest > 0n) {
		digits = BASE57_ALPHABET.charAt(Number(rest % BASE57)) + digits;
		rest /= BASE57;
	}
	return digits.padStart(BASE57_LENGTH, BASE57_ALPHABET.charAt(0));
}

/** A server-generated id for every kind except spaces: 22 base57 characters. */
export function generateId(): string {
	return uuidToBase57(randomUUID());
}

/** A canonical lowercase UUID v4, the generated id of a space. */
export function generateUuid(): string {
	return randomUUID();
}

/**
 * A share-link bearer token: 22 base57 characters carrying 122 random bits. A UUID v4 from
 * randomUUID is exactly 122 bits of the CSPRNG with the version and variant bits fixed, and
 * encoding the whole UUID spreads those bits over all 22 characters as upstream tokens do.
 */
export function generateShareToken(): string {
	return uuidToBase57(randomUUID());
}

/** The validated client-chosen id, or a generated one when the client left it empty. */
export function resolveId(raw: string | undefined, field: string, kind: IdKind): string {
	const id = validateClientId(raw ?? "", field);
	if (id !== "") return id;
	return kind === "space" ? generateUuid() : generateId();
}

/** A path parameter naming a stored resource. Path ids are not validated (contract 1.5): whatever is not a stored id is NOT_FOUND. */
export function pathId(value: unknown): string {
	return typeof value === "string" ? value : "";
}
