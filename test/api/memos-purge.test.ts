import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ServiceBroker } from "moleculer";
import MemosService from "../../services/memos/memos.service.js";
import { DELETED_RETENTION_MS } from "../../services/memos/memo-delete.js";
import type { MemoDoc } from "../../services/memos/memo-doc.js";
import { loadConfig } from "../../shared/runtime/config.js";
import { attachResources, documentsOf } from "../../shared/runtime/resources.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { attachmentsActions } from "../../services/attachments/attachments.contract.js";
import { fake, fakeService } from "../support/fake-service.js";
import { waitFor } from "../support/processes.js";
import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { populate, signIn, type Session } from "../support/users.js";
import { memoClient } from "../support/memos-client.js";
import { memoDoc } from "../support/memo-doc.js";

const DAY = 24 * 60 * 60 * 1000;

interface PurgingService {
	purgeExpiredMemos(now: number): Promise<number>;
}

describe("purge of soft-deleted memos after 30 days (contract 7.1, 7.6)", () => {
	let dataDir: string;
	let app: EmbeddedApp;
	let user: Session;
	let api: ReturnType<typeof memoClient>;

	const memos = () => documentsOf(app.node.broker).collection<MemoDoc>("memos");
	const purger = () => app.node.broker.getLocalService("memos") as unknown as PurgingService;

	async function createAndDelete(memoId: string): Promise<void> {
		expect((await api.create(user, { content: memoId }, memoId)).status).toBe(200);
		expect((await api.remove(user, `memos/${memoId}`)).status).toBe(200);
	}

	beforeAll(async () => {
		dataDir = await mkdtemp(path.join(os.tmpdir(), "memos-purge-"));
		app = await startEmbeddedApp({}, dataDir);
		user = (await populate(app.baseUrl, 1)).users[0];
		api = memoClient(app.baseUrl);
	});

	afterAll(async () => {
		await app.stop();
		await rm(dataDir, { recursive: true, force: true });
	});

	test("memos deleted more than 30 days before the clock are erased; younger ones stay", async () => {
		await createAndDelete("old-one");
		await createAndDelete("young-one");
		const now = Date.now();
		await memos().update({ _id: "old-one" }, { $set: { deleteTime: now - DELETED_RETENTION_MS - 1 } });

		expect(await purger().purgeExpiredMemos(now)).toBe(1);
		const listed = await api.list(user, { showDeleted: "true" });
		expect(listed.body.memos.map(m => m.name)).toEqual(["memos/young-one"]);
		// The purged id is free again; the soft-deleted one is still taken.
		expect((await api.create(user, { content: "x" }, "old-one")).status).toBe(200);
		expect((await api.create(user, { content: "x" }, "young-one")).status).toBe(409);

		// With the clock 31 days on, the younger one goes too; live memos never do.
		expect(await purger().purgeExpiredMemos(now + 31 * DAY)).toBe(1);
		expect((await api.list(user, { showDeleted: "true" })).body.memos.map(m => m.name)).toEqual(["memos/old-one"]);
	});

	test("the service purges on start", async () => {
		await createAndDelete("restart-one");
		await memos().update({ _id: "restart-one" }, { $set: { deleteTime: Date.now() - 40 * DAY } });
		await app.stop();
		app = await startEmbeddedApp({}, dataDir);
		user = await signIn(app.baseUrl, "user1");
		api = memoClient(app.baseUrl);
		// The start-up pass runs once the attachments service is there too.
		await waitFor("the start-up purge", async () => ((await memos().findOne({ _id: "restart-one" })) === null ? true : undefined));
		expect(await memos().findOne({ _id: "old-one" })).not.toBeNull();
	});
});

describe("the periodic purge runs on the service's clock", () => {
	test("a memo whose retention ends on the injected clock is purged by the timer", async () => {
		let clock = Date.UTC(2025, 0, 1);
		const documents = new SqliteDocumentStore({ dir: null });
		const broker = new ServiceBroker({ logger: false });
		attachResources(broker, { config: loadConfig({ LOG_LEVEL: "silent" }), documents });
		// The purge takes the memos' attachments along: the attachments service answers it.
		broker.createService(fakeService(attachmentsActions.deleteForMemos.service, [fake(attachmentsActions.deleteForMemos, () => undefined)]));
		const service = broker.createService(MemosService);
		// Replaced before start: the start-up purge and the timer both read the clock through the method.
		service.clockNow = () => clock;
		service.settings.purgeIntervalMs = 5;
		await broker.start();
		try {
			const memos = documents.collection<MemoDoc>("memos");
			await memos.insert(memoDoc({ _id: "timed", createTime: clock, updateTime: clock, deleteTime: clock }));
			await new Promise(resolve => setTimeout(resolve, 30));
			expect(await memos.findOne({ _id: "timed" })).not.toBeNull();
			clock += DELETED_RETENTION_MS + 1;
			// Until the timer's next run has purged it, however late a loaded machine runs it.
			await waitFor("the timer to purge the memo", async () => ((await memos.findOne({ _id: "timed" })) === null ? true : undefined), 60000);
		} finally {
			await broker.stop();
			await documents.close();
		}
	});
});
