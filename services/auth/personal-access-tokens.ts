import { randomInt } from "node:crypto";
import type { Caller } from "../../shared/caller.js";
import { failedPrecondition, invalidArgument, notFound, permissionDenied } from "../../shared/errors.js";
import { generateId } from "../../shared/ids.js";
import { listPage, pageSizeParam } from "../../shared/paging/list-page.js";
import { parseInt32, toTimestamp } from "../../shared/proto-json.js";
import type { Collection, Doc } from "../../shared/store/document-store.js";
import { hashPat } from "./pat-hash.js";
import { findByUsername } from "./user-access.js";
import type { UserDoc } from "./user-doc.js";

/** A personal access token (contract 16); the token itself is kept only as its SHA-256. */
export interface PatDoc extends Doc {
	userId: string;
	/** Hex SHA-256 of the token; unique. */
	tokenHash: string;
	description: string;
	createTime: number;
	/** Epoch milliseconds; null: never expires. */
	expiresAt: number | null;
	lastUsedAt: number | null;
}

export const PERSONAL_ACCESS_TOKENS = "auth_personal_access_tokens";

export const PAT_PREFIX = "memos_pat_";
const PAT_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 32 base62 characters: 190 bits. */
const PAT_RANDOM_LENGTH = 32;
export const MAX_PATS_PER_USER = 50;
const MAX_EXPIRES_IN_DAYS = 3650;
const MAX_DESCRIPTION_LENGTH = 256;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface PatDeps {
	users: Collection<UserDoc>;
	pats: Collection<PatDoc>;
	now(): number;
}


export function isPatShaped(token: string): boolean {
	return token.startsWith(PAT_PREFIX);
}

function newPat(): string {
	let random = "";
	for (let i = 0; i < PAT_RANDOM_LENGTH; i++) random += PAT_ALPHABET.charAt(randomInt(PAT_ALPHABET.length));
	return PAT_PREFIX + random;
}

export function toPatJson(username: string, pat: PatDoc): Record<string, unknown> {
	return {
		name: `users/${username}/personalAccessTokens/${pat._id}`,
		description: pat.description,
		createdAt: toTimestamp(pat.createTime),
		...(pat.expiresAt === null ? {} : { expiresAt: toTimestamp(pat.expiresAt) }),
		...(pat.lastUsedAt === null ? {} : { lastUsedAt: toTimestamp(pat.lastUsedAt) })
	};
}

/** The user of `users/{user}/personalAccessTokens`, if the caller may `act` on their tokens (admins list and delete, never create). */
async function ownerFor(deps: PatDeps, username: unknown, caller: Caller, act: "create" | "read" | "delete"): Promise<UserDoc> {
	const user = await findByUsername(deps.users, username);
	if (caller.id === user._id) return user;
	if (act !== "create" && caller.role === "ADMIN") return user;
	throw permissionDenied("only the user themself may manage their personal access tokens");
}

function expiresInDaysOf(raw: unknown): number {
	const days = raw === undefined || raw === null ? 0 : parseInt32(raw, "expiresInDays");
	if (days < 0 || days > MAX_EXPIRES_IN_DAYS) throw invalidArgument(`expiresInDays must be 0 (never) or 1-${MAX_EXPIRES_IN_DAYS}`);
	return days;
}

function descriptionOf(raw: unknown): string {
	if (raw === undefined || raw === null) return "";
	if (typeof raw !== "string") throw invalidArgument("description must be a string");
	if ([...raw].length > MAX_DESCRIPTION_LENGTH) throw invalidArgument(`description must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
	return raw;
}

export interface CreatePatParams {
	user?: unknown;
	description?: unknown;
	expiresInDays?: unknown;
}

/** CreatePersonalAccessToken: the only answer that ever holds the token. */
export async function createPat(deps: PatDeps, params: CreatePatParams, caller: Caller): Promise<Record<string, unknown>> {
	const user = await ownerFor(deps, params.user, caller, "create");
	const description = descriptionOf(params.description);
	const days = expiresInDaysOf(params.expiresInDays);
	const now = deps.now();
	const token = newPat();
	const pat: PatDoc = {
		_id: generateId(),
		userId: user._id,
		tokenHash: hashPat(token),
		description,
		createTime: now,
		expiresAt: days === 0 ? null : now + days * DAY_MS,
		lastUsedAt: null
	};
	// Insert, then count: two concurrent creations at the cap cannot both stay.
	await deps.pats.insert(pat);
	if ((await deps.pats.count({ userId: user._id })) > MAX_PATS_PER_USER) {
		await deps.pats.remove({ _id: pat._id });
		throw failedPrecondition(`a user may have at most ${MAX_PATS_PER_USER} personal access tokens`);
	}
	return { personalAccessToken: toPatJson(user.username, pat), token };
}

export interface ListPatsParams {
	user?: unknown;
	pageSize?: unknown;
	pageToken?: unknown;
}

/** ListPersonalAccessTokens, newest first; never the tokens. */
export async function listPats(deps: PatDeps, params: ListPatsParams, caller: Caller): Promise<Record<string, unknown>> {
	const user = await ownerFor(deps, params.user, caller, "read");
	if (params.pageToken !== undefined && typeof params.pageToken !== "string") throw invalidArgument("pageToken must be a string");
	const page = await listPage(deps.pats, {
		operation: "ListPersonalAccessTokens",
		query: { user: user._id },
		pageSize: pageSizeParam(params.pageSize),
		pageToken: params.pageToken,
		sort: { createTime: -1, _id: -1 },
		keyTypes: { createTime: "number", _id: "string" },
		branches: [{ userId: user._id }]
	});
	return { personalAccessTokens: page.items.map(pat => toPatJson(user.username, pat)), nextPageToken: page.nextPageToken };
}

/** DeletePersonalAccessToken; returns the deleted token's hash, for the verifiers' caches. */
export async function deletePat(deps: PatDeps, params: { user?: unknown; personalAccessToken?: unknown }, caller: Caller): Promise<string> {
	const user = await ownerFor(deps, params.user, caller, "delete");
	const id = typeof params.personalAccessToken === "string" ? params.personalAccessToken : "";
	const pat = id === "" ? null : await deps.pats.findOne({ _id: id, userId: user._id });
	if (!pat) throw notFound(`personal access token ${id} not found`);
	await deps.pats.remove({ _id: pat._id });
	return pat.tokenHash;
}
