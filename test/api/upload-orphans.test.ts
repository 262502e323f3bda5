import { cp, mkdir, mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { newUploadId, SESSION_IDLE_MS } from "../../services/attachments/upload/upload-sessions.js";
import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { signIn, signUp, type Session } from "../support/users.js";

/**
 * Staged upload chunks of sessions lost in a crash (issue 12 item 9): sessions live in the
 * memory of one node, so at start-up the attachments service removes the staged chunks that
 * belong to no live session, JSON chunked and tus alike, and keeps those of other live nodes.
 */

const NODE_ID = "orphans-node";

let dataDir: string;
let app: EmbeddedApp | undefined;

const staged = (...parts: string[]) => path.join(dataDir, "blobs", "uploads", ...parts);

/** The session folders of the staging area, emptied ones included. */
async function stagedFolders(): Promise<string[]> {
	return (await readdir(staged()).catch(() => [])).sort();
}

async function leaveChunk(folder: string, ageMs = 0): Promise<void> {
	await mkdir(staged(folder), { recursive: true });
	await writeFile(staged(folder, "0"), "staged bytes");
	const time = new Date(Date.now() - ageMs);
	await utimes(staged(folder, "0"), time, time);
}

beforeAll(async () => {
	dataDir = await mkdtemp(path.join(os.tmpdir(), "memos-orphans-"));
});

afterAll(async () => {
	await app?.stop();
	await rm(dataDir, { recursive: true, force: true });
});

test("at start-up the staged chunks of lost sessions are removed; those another live node may hold are kept", async () => {
	app = await startEmbeddedApp({ NODE_ID }, dataDir);
	const baseUrl = app.baseUrl;
	await signUp(baseUrl, "uploader");
	const user: Session = await signIn(baseUrl, "uploader");
	const headers = { Authorization: `Bearer ${user.accessToken}`, "Content-Type": "application/json" };

	// A JSON chunked session and a tus upload, each with bytes staged.
	const opened = await fetch(`${baseUrl}/api/v1/attachments:upload`, { method: "POST", headers, body: JSON.stringify({ spec: { filename: "a.bin", size: "10" } }) });
	const { uploadId } = (await opened.json()) as { uploadId: string };
	const chunk = await fetch(`${baseUrl}/api/v1/attachments:upload`, { method: "POST", headers, body: JSON.stringify({ uploadId, offset: "0", content: Buffer.from("hello").toString("base64") }) });
	expect(chunk.status).toBe(200);
	const tus = await fetch(`${baseUrl}/api/v1/attachments:tus`, {
		method: "POST",
		headers: {
			Authorization: `Bearer ${user.accessToken}`,
			"Tus-Resumable": "1.0.0",
			"Upload-Length": "10",
			"Upload-Metadata": `filename ${Buffer.from("b.bin").toString("base64")}`,
			"Content-Type": "application/offset+octet-stream"
		},
		body: Buffer.from("tus!")
	});
	expect(tus.status).toBe(201);
	const tusId = (tus.headers.get("location") ?? "").split("/").at(-1) as string;
	expect(await stagedFolders()).toEqual([uploadId, tusId].sort());

	// A crash leaves them behind: a clean stop would discard them, so they are put back after it.
	const saved = await mkdtemp(path.join(os.tmpdir(), "memos-orphans-saved-"));
	await cp(staged(), saved, { recursive: true });
	await app.stop();
	app = undefined;
	await cp(saved, staged(), { recursive: true });
	await rm(saved, { recursive: true, force: true });

	// Besides them: a folder that is no upload id, another node's idle for longer than a session lives, and another node's fresh one.
	const oldElsewhere = newUploadId("gone-node").id;
	const liveElsewhere = newUploadId("other-node").id;
	await leaveChunk("not-an-upload-id");
	await leaveChunk(oldElsewhere, SESSION_IDLE_MS + 60_000);
	await leaveChunk(liveElsewhere);
	expect(await stagedFolders()).toEqual([uploadId, tusId, "not-an-upload-id", oldElsewhere, liveElsewhere].sort());

	app = await startEmbeddedApp({ NODE_ID }, dataDir);
	expect(await stagedFolders()).toEqual([liveElsewhere]);
	expect(await readdir(staged(liveElsewhere))).toEqual(["0"]);
	// The lost sessions are gone for their clients too (contract 8.4: lost on restart).
	const resumed = await fetch(`${app.baseUrl}/api/v1/attachments:upload`, {
		method: "POST",
		headers: { Authorization: `Bearer ${(await signIn(app.baseUrl, "uploader")).accessToken}`, "Content-Type": "application/json" },
		body: JSON.stringify({ uploadId })
	});
	expect(resumed.status).toBe(404);
});
