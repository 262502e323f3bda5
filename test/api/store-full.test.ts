import { execFileSync } from "node:child_process";
import { openSync, closeSync, writeSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { resourcesOf } from "../../shared/runtime/resources.js";
import type { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { memoClient, type Answer, type Memo } from "../support/memos-client.js";
import { waitFor } from "../support/processes.js";
import { signIn, signUp, type Session } from "../support/users.js";

// Issue 16.6: a store that cannot write answers a clear code, is not ready, keeps serving reads,
// loses nothing acknowledged and shows nothing refused.

const CONTENT = "a memo that takes some room on disk ".repeat(60);
// Enough writes to fill what is left of the last pages, and a bound should none be refused.
const MAX_WRITES = 400;

async function readyz(app: EmbeddedApp): Promise<{ status: number; failing: string[] }> {
	const res = await fetch(`http://127.0.0.1:${app.node.healthPort}/readyz`);
	const body = (await res.json()) as { failing?: string[] };
	return { status: res.status, failing: body.failing ?? [] };
}

/** Creates memos until one is refused; the names acknowledged and the refused answer with its id. */
async function writeUntilRefused(app: EmbeddedApp, user: Session, prefix: string): Promise<{ acknowledged: string[]; refused: Answer<Memo>; refusedId: string }> {
	const api = memoClient(app.baseUrl);
	const acknowledged: string[] = [];
	for (let i = 0; i < MAX_WRITES; i++) {
		const id = `${prefix}-${i}`;
		const res = await api.create(user, { content: CONTENT }, id);
		if (res.status !== 200) return { acknowledged, refused: res, refusedId: id };
		acknowledged.push(res.body.name);
	}
	throw new Error(`${MAX_WRITES} writes were all accepted: the storage never filled`);
}

async function expectAllReadable(app: EmbeddedApp, user: Session, names: string[], refusedId: string): Promise<void> {
	const api = memoClient(app.baseUrl);
	for (const name of names) expect((await api.get(user, name)).status).toBe(200);
	expect((await api.get(user, `memos/${refusedId}`)).status).toBe(404);
	const list = await api.list(user, { pageSize: "1000" });
	expect(list.status).toBe(200);
	expect(list.body.memos.map(m => m.name).sort()).toEqual([...names].sort());
}

describe("the SQLite store at its page limit (SQLITE_FULL from the engine)", () => {
	let app: EmbeddedApp;
	let user: Session;
	const store = () => resourcesOf(app.node.broker).documents as SqliteDocumentStore;

	beforeAll(async () => {
		app = await startEmbeddedApp();
		await signUp(app.baseUrl, "admin");
		user = await signIn(app.baseUrl, "admin");
	});
	afterAll(async () => {
		await app.stop();
	});

	test("writes answer RESOURCE_EXHAUSTED, readiness fails, reads go on; all comes back when there is room again", async () => {
		const api = memoClient(app.baseUrl);
		const acknowledged: string[] = [];
		for (let i = 0; i < 5; i++) acknowledged.push((await api.create(user, { content: CONTENT })).body.name);
		expect((await readyz(app)).status).toBe(200);

		// The database may not grow past the pages it has (a limit lower than its size is raised to it).
		store().exec("PRAGMA max_page_count = 1");
		const { acknowledged: more, refused, refusedId } = await writeUntilRefused(app, user, "tight");
		expect(refused.status).toBe(429);
		expect(refused.body).toEqual({ code: 8, message: "storage is full: the change was not saved", details: [] });
		const ready = await readyz(app);
		expect(ready.status).toBe(503);
		expect(ready.failing).toContain("documents");
		await expectAllReadable(app, user, [...acknowledged, ...more], refusedId);
		// Refused again while full, and still not ready.
		expect((await api.create(user, { content: CONTENT }, refusedId)).status).toBe(429);
		expect((await readyz(app)).status).toBe(503);

		store().exec("PRAGMA max_page_count = 4294967294");
		await waitFor("readiness after the store has room", async () => ((await readyz(app)).status === 200 ? true : undefined));
		const again = await api.create(user, { content: CONTENT }, refusedId);
		expect(again.status).toBe(200);
		await expectAllReadable(app, user, [...acknowledged, ...more, again.body.name], "never-written");
	});
});

/**
 * A real full file system: a small tmpfs under the data directory. Mounting needs root (CAP_SYS_ADMIN),
 * which the CI machine has; elsewhere the suite says it was skipped.
 */
function mountTmpfs(dir: string, size: string): boolean {
	try {
		execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "pipe" });
		return true;
	} catch {
		return false;
	}
}

function fillDisk(file: string): void {
	const fd = openSync(file, "a");
	try {
		for (const size of [1 << 16, 512, 1]) {
			const chunk = Buffer.alloc(size);
			try {
				for (;;) writeSync(fd, chunk);
			} catch (err) {
				if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
			}
		}
	} finally {
		closeSync(fd);
	}
}

const root = await mkdtemp(path.join(os.tmpdir(), "memos-full-disk-"));
const mounted = mountTmpfs(root, "24m");
if (!mounted) console.error("store-full.test: cannot mount a tmpfs here (needs root); the real full-disk suite is skipped");

(mounted ? describe : describe.skip)("the embedded app on a real full disk (tmpfs)", () => {
	const dataDir = path.join(root, "data");
	const filler = path.join(root, "filler");
	let app: EmbeddedApp | undefined;

	afterAll(async () => {
		await app?.stop();
		execFileSync("umount", [root]);
		await rm(root, { recursive: true, force: true });
	});

	test("the app starts on a full disk, refuses writes with a clear code, serves reads, and loses nothing acknowledged", async () => {
		await mkdir(dataDir);
		app = await startEmbeddedApp({}, dataDir);
		await signUp(app.baseUrl, "admin");
		// Signing in writes a session: this access token serves every later request, restarts included.
		const user = await signIn(app.baseUrl, "admin");
		const api = () => memoClient((app as EmbeddedApp).baseUrl);
		const first = await api().create(user, { content: CONTENT }, "before-full");
		expect(first.status).toBe(200);
		const written = [first.body.name];
		// A clean stop removes SQLite's WAL and shared-memory files, which a full disk then has no room for.
		await app.stop();

		fillDisk(filler);
		app = await startEmbeddedApp({}, dataDir);
		await expectAllReadable(app, user, written, "refused-at-start");
		expect((await readyz(app)).failing).toEqual(expect.arrayContaining(["documents", "disk"]));
		const atStart = await api().create(user, { content: CONTENT }, "refused-at-start");
		expect(atStart.status).toBe(429);
		expect(atStart.body).toEqual({ code: 8, message: "storage is full: the change was not saved", details: [] });

		await rm(filler);
		await waitFor("readiness once the disk has room", async () => ((await readyz(app as EmbeddedApp)).status === 200 ? true : undefined));
		const afterRoom = await api().create(user, { content: CONTENT }, "refused-at-start");
		expect(afterRoom.status).toBe(200);
		written.push(afterRoom.body.name);

		// Full while running: writes refused, not ready, reads served; a restart while full too.
		fillDisk(filler);
		const { acknowledged, refused, refusedId } = await writeUntilRefused(app, user, "full");
		written.push(...acknowledged);
		expect(refused.status).toBe(429);
		expect(refused.body.code).toBe(8);
		const ready = await readyz(app);
		expect(ready.status).toBe(503);
		expect(ready.failing).toContain("disk");
		await expectAllReadable(app, user, written, refusedId);
		await app.stop();
		// Stopping may free what SQLite's WAL held.
		fillDisk(filler);
		app = await startEmbeddedApp({}, dataDir);
		await expectAllReadable(app, user, written, refusedId);
		expect((await readyz(app)).status).toBe(503);
		expect((await api().create(user, { content: CONTENT }, refusedId)).status).toBe(429);

		await rm(filler);
		await waitFor("readiness once the disk has room again", async () => ((await readyz(app as EmbeddedApp)).status === 200 ? true : undefined));
		const again = await api().create(user, { content: CONTENT }, refusedId);
		expect(again.status).toBe(200);
		await expectAllReadable(app, user, [...written, again.body.name], "never-written");
	});
});
