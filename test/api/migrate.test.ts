import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CATALOG } from "../../services/catalog.js";
import { loadConfig } from "../../shared/runtime/config.js";
import { indexesOf } from "../../shared/runtime/indexes-mixin.js";
import { startNode, type NodeHandle } from "../../shared/runtime/node.js";
import { IndexCheckingStore } from "../../shared/store/index-check.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { runMigration, waitFor } from "../support/processes.js";

/** Issue 21.5: index builds are a deploy step of their own; a service only checks its indexes. */

let dir: string;

beforeEach(async () => {
	dir = await mkdtemp(path.join(os.tmpdir(), "memos-migrate-"));
});

afterEach(async () => {
	await rm(dir, { recursive: true, force: true });
});

/** The indexes every service declares that the store in `dir` lacks. */
async function missingIndexes(): Promise<string[]> {
	const checking = new IndexCheckingStore(new SqliteDocumentStore({ dir: path.join(dir, "db") }));
	try {
		for (const entry of Object.values(CATALOG)) await indexesOf(entry.schema)?.(checking);
		return await checking.missingIndexes();
	} finally {
		await checking.close();
	}
}

test("--migrate builds every service's indexes, says so per service and exits 0; run again it changes nothing", async () => {
	const before = await missingIndexes();
	expect(before).toContain("users{username:1} unique");
	expect(before.length).toBeGreaterThan(20);
	const first = await runMigration({ DATA_DIR: dir });
	expect(first.code).toBe(0);
	for (const name of ["auth", "memos", "attachments", "spaces"]) expect(first.output).toContain(`migrate: the ${name} service's indexes are in place`);
	await expect(missingIndexes()).resolves.toEqual([]);
	const again = await runMigration({ DATA_DIR: dir });
	expect(again.code).toBe(0);
	await expect(missingIndexes()).resolves.toEqual([]);
});

describe("a node whose store only checks its indexes (as on MongoDB)", () => {
	let node: NodeHandle | undefined;

	afterEach(async () => {
		await node?.stop();
		node = undefined;
	});

	test("starts, is alive but not ready while indexes are missing, and turns ready once a migration has built them, without a restart", async () => {
		const config = loadConfig({ HOST: "127.0.0.1", PORT: "0", HEALTH_PORT: "0", METRICS_ENABLED: "false", LOG_LEVEL: "silent", DATA_DIR: dir, SERVICES: "auth,memos,spaces,attachments,instance" });
		node = await startNode(config, CATALOG, { documents: new IndexCheckingStore(new SqliteDocumentStore({ dir: path.join(dir, "db") })) });
		const health = `http://127.0.0.1:${node.healthPort}`;
		expect((await fetch(`${health}/healthz`)).status).toBe(200);
		const notReady = await fetch(`${health}/readyz`);
		expect({ status: notReady.status, body: await notReady.json() }).toEqual({ status: 503, body: { status: "not_ready", failing: ["indexes"] } });

		expect((await runMigration({ DATA_DIR: dir })).code).toBe(0);
		await waitFor("ready after the migration", async () => ((await fetch(`${health}/readyz`)).status === 200 ? true : undefined));
	});
});
