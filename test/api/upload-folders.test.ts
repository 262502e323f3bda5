import { readdir } from "node:fs/promises";
import path from "node:path";
import { usePopulatedApp } from "../support/populated-app.js";
import type { Session } from "../support/users.js";

/**
 * An upload session stages its chunks in the folder `uploads/<uploadId>/` of the blob store;
 * once the session ends (completed, terminated, expired, or discarded at completion) the local
 * blob store keeps no folder of it, empty or not.
 */

const { app, api, users: [alice] } = usePopulatedApp(1);
let now = Date.now();

beforeAll(() => {
	const service = app().node.broker.getLocalService("attachments") as unknown as { clock: () => number };
	service.clock = () => now;
});

/** The session folders the local blob store holds. */
async function stagingFolders(): Promise<string[]> {
	return readdir(path.join(app().dataDir, "blobs", "uploads")).catch(() => []);
}

function upload(as: Session, body: Record<string, unknown>) {
	return api.request<{ uploadId: string; nextOffset: string; attachment?: { name: string } }>("POST", "/attachments:upload", { as, body });
}

async function open(spec: Record<string, unknown>): Promise<string> {
	const res = await upload(alice(), { spec });
	expect(res.status).toBe(200);
	return res.body.uploadId;
}

async function chunk(uploadId: string, offset: number, text: string) {
	const res = await upload(alice(), { uploadId, offset: String(offset), content: Buffer.from(text).toString("base64") });
	expect(res.status).toBe(200);
	return res.body;
}

function tus(method: string, url: string, headers: Record<string, string> = {}, body?: Buffer) {
	return fetch(url, { method, headers: { "Tus-Resumable": "1.0.0", Authorization: `Bearer ${alice().accessToken}`, ...headers }, ...(body === undefined ? {} : { body }) });
}

async function tusCreate(length: number): Promise<{ url: string; uploadId: string }> {
	const res = await tus("POST", `${app().baseUrl}/api/v1/attachments:tus`, { "Upload-Length": String(length), "Upload-Metadata": `filename ${Buffer.from("t.bin").toString("base64")}` });
	expect(res.status).toBe(201);
	const url = new URL(res.headers.get("location") as string, app().baseUrl);
	return { url: url.href, uploadId: decodeURIComponent(url.pathname.split("/").pop() as string) };
}

const patch = (url: string, offset: number, text: string) => tus("PATCH", url, { "Content-Type": "application/offset+octet-stream", "Upload-Offset": String(offset) }, Buffer.from(text));

test("a chunked upload completed from several chunks leaves no folder", async () => {
	const uploadId = await open({ filename: "three.txt", size: "9" });
	await chunk(uploadId, 0, "abc");
	await chunk(uploadId, 3, "def");
	expect(await stagingFolders()).toContain(uploadId);
	expect((await chunk(uploadId, 6, "ghi")).attachment).toBeDefined();
	expect(await stagingFolders()).not.toContain(uploadId);
});

test("a chunked upload discarded at completion (its attachment id taken meanwhile) leaves no folder", async () => {
	const uploadId = await open({ filename: "taken.txt", size: "4", attachmentId: "folder-taken" });
	await chunk(uploadId, 0, "ab");
	expect((await api.request("POST", "/attachments", { as: alice(), query: { attachmentId: "folder-taken" }, body: { filename: "x.txt" } })).status).toBe(200);
	expect((await upload(alice(), { uploadId, offset: "2", content: Buffer.from("cd").toString("base64") })).status).toBe(409);
	expect(await stagingFolders()).not.toContain(uploadId);
});

test("an expired session's folder goes with it at the next sweep", async () => {
	const uploadId = await open({ filename: "idle.txt", size: "4" });
	await chunk(uploadId, 0, "ab");
	now += 30 * 60 * 1000 + 1;
	// Every upload call first sweeps the expired sessions.
	await open({ filename: "other.txt", size: "1" });
	expect(await stagingFolders()).not.toContain(uploadId);
});

test("tus: termination and completion leave no folder", async () => {
	const terminated = await tusCreate(6);
	expect((await patch(terminated.url, 0, "abc")).status).toBe(204);
	expect(await stagingFolders()).toContain(terminated.uploadId);
	expect((await tus("DELETE", terminated.url)).status).toBe(204);
	expect(await stagingFolders()).not.toContain(terminated.uploadId);

	const completed = await tusCreate(6);
	expect((await patch(completed.url, 0, "abc")).status).toBe(204);
	expect((await patch(completed.url, 3, "def")).status).toBe(204);
	expect(await stagingFolders()).not.toContain(completed.uploadId);
});
