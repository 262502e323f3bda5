import type { Hash } from "node:crypto";
import { generateId } from "../../../shared/ids.js";

/** Chunked upload limits (contract 8.4, 14). */
export const MAX_CHUNK_BYTES = 4 * 1024 * 1024;
export const MAX_OPEN_SESSIONS_PER_USER = 10;
export const SESSION_IDLE_MS = 30 * 60 * 1000;

/** What the opening call fixed: the attachment the session will create. */
export interface UploadSpec {
	filename: string;
	/** Normalised; "" means "decide at completion" (extension, then sniffing). */
	type: string;
	size: number;
	memoId: string | null;
	attachmentId: string;
}

export interface UploadSession {
	/** The uploadId the client holds, also the folder of the staged chunks in the blob store (stagedPart). */
	id: string;
	userId: string;
	spec: UploadSpec;
	nextOffset: number;
	/** Blob keys of the chunks received, in order. */
	parts: string[];
	/** SHA-256 of the bytes received so far, carried from chunk to chunk (the file is never read again to hash it). */
	hash: Hash;
	/** The first bytes received, for sniffing the type at completion. */
	head: Buffer;
	/** Offset of the last chunk received, so a repeated final chunk is recognised. */
	lastChunkOffset: number;
	expiresAt: number;
	/** A chunk is being written: a concurrent one cannot know its offset is still right. */
	busy: boolean;
	/** The answer that completed the session, repeated until it expires. */
	completed?: Record<string, unknown>;
}

/**
 * The upload ids name the node holding the session (sessions live in one process's memory,
 * contract 8.4): `<random>.<node id in base64url>`, so any replica can route a continuation.
 */
export function newUploadId(nodeID: string): { id: string; key: string } {
	const key = generateId();
	return { id: `${key}.${Buffer.from(nodeID, "utf8").toString("base64url")}`, key };
}

/** The node of an upload id, or null when the id cannot be one of ours. */
export function nodeOfUploadId(id: string): string | null {
	const match = /^([A-Za-z0-9]{22})\.([A-Za-z0-9_-]{1,400})$/.exec(id);
	if (match === null) return null;
	const node = Buffer.from(match[2], "base64url").toString("utf8");
	return node === "" ? null : node;
}

/** Where the staged chunks of every session are, in the blob store. */
export const STAGING_PREFIX = "uploads/";

/** The blob folder of the session `id`'s chunks: it names the session, and so its node. */
export function stagingFolder(id: string): string {
	return `${STAGING_PREFIX}${id}/`;
}

/** The blob key of the `index`-th chunk of the session `id`. */
export function stagedPart(id: string, index: number): string {
	return `${stagingFolder(id)}${index}`;
}

/**
 * The staged chunks among `staged` (blob keys under STAGING_PREFIX) that no live session can hold,
 * when this node (`ownNode`) starts and so holds no session: its own, those of a folder that is no
 * upload id, and those of another node that the registry does not list (`nodeAvailable`) and that
 * were last written longer ago than a session lives idle (so a node still joining keeps its chunks).
 */
export function orphanedChunks(staged: readonly { key: string; lastModified: Date }[], ownNode: string, nodeAvailable: (node: string) => boolean, now: number): string[] {
	const folders = new Map<string, { keys: string[]; newest: number }>();
	for (const { key, lastModified } of staged) {
		const folder = key.slice(STAGING_PREFIX.length).split("/")[0] ?? "";
		const entry = folders.get(folder) ?? { keys: [], newest: 0 };
		entry.keys.push(key);
		entry.newest = Math.max(entry.newest, lastModified.getTime());
		folders.set(folder, entry);
	}
	const orphans: string[] = [];
	for (const [folder, { keys, newest }] of folders) {
		const node = nodeOfUploadId(folder);
		const orphaned = node === null || node === ownNode || (!nodeAvailable(node) && now - newest > SESSION_IDLE_MS);
		if (orphaned) orphans.push(...keys);
	}
	return orphans;
}

/** The sessions of this node, with an injectable clock. */
export class UploadSessions {
	private readonly sessions = new Map<string, UploadSession>();

	constructor(private readonly clock: () => number) {}

	now(): number {
		return this.clock();
	}

	/** Sessions of `userId` still receiving bytes. */
	openCount(userId: string): number {
		const now = this.clock();
		let count = 0;
		for (const session of this.sessions.values()) if (session.userId === userId && session.completed === undefined && session.expiresAt > now) count++;
		return count;
	}

	/** Sessions still receiving bytes, on this node. */
	openTotal(): number {
		const now = this.clock();
		let count = 0;
		for (const session of this.sessions.values()) if (session.completed === undefined && session.expiresAt > now) count++;
		return count;
	}

	add(session: UploadSession): void {
		this.sessions.set(session.id, session);
	}

	/** The live session `id` of `userId`; another user's, an expired or an unknown one is null. */
	get(id: string, userId: string): UploadSession | null {
		const session = this.sessions.get(id);
		if (session === undefined || session.userId !== userId || session.expiresAt <= this.clock()) return null;
		return session;
	}

	touch(session: UploadSession): void {
		session.expiresAt = this.clock() + SESSION_IDLE_MS;
	}

	remove(session: UploadSession): void {
		this.sessions.delete(session.id);
	}

	/** Takes out every expired session (their staged chunks are the caller's to delete). */
	takeExpired(): UploadSession[] {
		const now = this.clock();
		const expired = [...this.sessions.values()].filter(session => session.expiresAt <= now && !session.busy);
		for (const session of expired) this.sessions.delete(session.id);
		return expired;
	}

	all(): UploadSession[] {
		return [...this.sessions.values()];
	}
}
