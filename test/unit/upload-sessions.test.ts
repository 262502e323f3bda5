import { createHash } from "node:crypto";
import { MAX_CHUNK_BYTES, MAX_OPEN_SESSIONS_PER_USER, newUploadId, nodeOfUploadId, orphanedChunks, SESSION_IDLE_MS, stagedPart, UploadSessions, type UploadSession } from "../../services/attachments/upload/upload-sessions.js";

/** Chunked upload sessions of one node (contract 8.4, 14): limits, ownership, idle time-out. */

const spec = { filename: "a.bin", type: "", size: 10, memoId: null, attachmentId: "att" };

describe("upload sessions", () => {
	let now: number;
	let sessions: UploadSessions;
	const open = (id: string, userId: string, expiresAt = now + SESSION_IDLE_MS): UploadSession => {
		const session: UploadSession = { id, userId, spec, nextOffset: 0, parts: [], hash: createHash("sha256"), head: Buffer.alloc(0), lastChunkOffset: -1, expiresAt, busy: false };
		sessions.add(session);
		return session;
	};

	beforeEach(() => {
		now = 1_000_000;
		sessions = new UploadSessions(() => now);
	});

	test("the limits of contract 14: 4 MiB chunks, 10 open sessions per user, 30 minutes idle", () => {
		expect(MAX_CHUNK_BYTES).toBe(4 * 1024 * 1024);
		expect(MAX_OPEN_SESSIONS_PER_USER).toBe(10);
		expect(SESSION_IDLE_MS).toBe(30 * 60 * 1000);
	});

	test("a session is found by its owner only, until the moment it expires", () => {
		const session = open("s1", "alice");
		expect(sessions.now()).toBe(now);
		expect(sessions.get("s1", "alice")).toBe(session);
		expect(sessions.get("s1", "bob")).toBeNull();
		expect(sessions.get("s2", "alice")).toBeNull();
		now = session.expiresAt - 1;
		expect(sessions.get("s1", "alice")).toBe(session);
		now = session.expiresAt;
		expect(sessions.get("s1", "alice")).toBeNull();
	});

	test("touching a session gives it 30 more minutes from now", () => {
		const session = open("s1", "alice");
		now += 10 * 60 * 1000;
		sessions.touch(session);
		expect(session.expiresAt).toBe(now + SESSION_IDLE_MS);
	});

	test("open sessions are counted per user and in all; completed and expired ones do not count", () => {
		open("a1", "alice");
		open("a2", "alice");
		const done = open("a3", "alice");
		done.completed = { name: "attachments/att" };
		open("a4", "alice", now);
		open("b1", "bob");
		expect(sessions.openCount("alice")).toBe(2);
		expect(sessions.openCount("bob")).toBe(1);
		expect(sessions.openCount("carol")).toBe(0);
		expect(sessions.openTotal()).toBe(3);
		now += 1;
		open("a5", "alice", now + 1);
		expect(sessions.openCount("alice")).toBe(3);
	});

	test("expired sessions are taken out, except one a chunk is being written to; live ones stay", () => {
		const live = open("live", "alice", now + 1);
		const expired = open("expired", "alice", now);
		const busy = open("busy", "bob", now - 1);
		busy.busy = true;
		expect(sessions.takeExpired()).toEqual([expired]);
		expect(sessions.all()).toEqual([live, busy]);
		busy.busy = false;
		expect(sessions.takeExpired()).toEqual([busy]);
		sessions.remove(live);
		expect(sessions.all()).toEqual([]);
	});
});

describe("upload ids name their node", () => {
	test("a 22-character key, a dot and the node id in base64url", () => {
		const { id, key } = newUploadId("node-1");
		expect(key).toMatch(/^[A-Za-z0-9]{22}$/);
		expect(id).toBe(`${key}.${Buffer.from("node-1").toString("base64url")}`);
		expect(nodeOfUploadId(id)).toBe("node-1");
	});

	test("anything else names no node", () => {
		const key = "Vb7Hk2LmQ9xTz4WcN8pRs3";
		expect(nodeOfUploadId(`${key}.`)).toBeNull();
		expect(nodeOfUploadId(`x${key}.bm9kZQ`)).toBeNull();
		expect(nodeOfUploadId(`${key}.bm9kZQ!`)).toBeNull();
		expect(nodeOfUploadId(`${key}.${"A".repeat(401)}`)).toBeNull();
		expect(nodeOfUploadId(`${key}.${"QUFB".repeat(100)}`)).toBe("AAA".repeat(100));
		expect(nodeOfUploadId(`${key}.bm9kZQ\n`)).toBeNull();
		// One base64 character decodes to no byte at all.
		expect(nodeOfUploadId(`${key}.A`)).toBeNull();
	});
});

describe("staged chunks that no live session holds (start-up sweep)", () => {
	test("own node's, malformed folders' and those of a node gone and idle past the session time-out; an available node's are kept however old", () => {
		const now = Date.UTC(2026, 0, 1);
		const at = (age: number) => new Date(now - age);
		const own = newUploadId("me").id;
		const gone = newUploadId("gone").id;
		const goneFresh = newUploadId("gone").id;
		const alive = newUploadId("alive").id;
		const staged = [
			{ key: stagedPart(own, 0), lastModified: at(0) },
			{ key: stagedPart(own, 1), lastModified: at(0) },
			{ key: "uploads/not-an-id/0", lastModified: at(0) },
			// A folder counts as written when its newest chunk was.
			{ key: stagedPart(gone, 0), lastModified: at(2 * SESSION_IDLE_MS) },
			{ key: stagedPart(gone, 1), lastModified: at(SESSION_IDLE_MS + 1) },
			{ key: stagedPart(goneFresh, 0), lastModified: at(2 * SESSION_IDLE_MS) },
			{ key: stagedPart(goneFresh, 1), lastModified: at(SESSION_IDLE_MS - 1) },
			{ key: stagedPart(alive, 0), lastModified: at(10 * SESSION_IDLE_MS) }
		];
		const orphans = orphanedChunks(staged, "me", node => node === "alive", now);
		expect(orphans.sort()).toEqual([stagedPart(own, 0), stagedPart(own, 1), "uploads/not-an-id/0", stagedPart(gone, 0), stagedPart(gone, 1)].sort());
	});

	test("a gone node's chunks written exactly the session time-out ago are kept: the session could still be live", () => {
		const now = Date.UTC(2026, 0, 1);
		const edge = newUploadId("gone").id;
		expect(orphanedChunks([{ key: stagedPart(edge, 0), lastModified: new Date(now - SESSION_IDLE_MS) }], "me", () => false, now)).toEqual([]);
	});
});
