import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { ServiceBroker } from "moleculer";
import AttachmentsService from "../../services/attachments/attachments.service.js";
import { attachmentsActions } from "../../services/attachments/attachments.contract.js";
import { memosActions, type MemoAccessInfo } from "../../services/memos/memos.contract.js";
import { spacesActions } from "../../services/spaces/spaces.contract.js";
import { LocalBlobStore } from "../../shared/blob/local-blob-store.js";
import type { Caller } from "../../shared/caller.js";
import { call, STREAM_LENGTH_PARAM } from "../../shared/contract.js";
import { loadConfig } from "../../shared/runtime/config.js";
import { attachResources } from "../../shared/runtime/resources.js";
import { settingValue } from "../../shared/settings/instance-settings.contract.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { fake, fakeService } from "../support/fake-service.js";
import { rejectionOf } from "../support/service-errors.js";

/**
 * The attachments service on a bare broker: its rules through its actions, with typed fakes of
 * what it calls (memos' access rule and touch, spaces' membership, the instance settings), the
 * document store in memory and blobs in a temporary folder.
 */

const alice: Caller = { id: "u-alice", username: "alice", role: "USER" } as Caller;
const bob: Caller = { id: "u-bob", username: "bob", role: "USER" } as Caller;

/** The memos the fake memos service knows, and the read answer each caller gets. */
const memos = new Map<string, Omit<MemoAccessInfo, "read"> & { readers: string[] }>();
const touched: string[] = [];
/** The memo ids of each accessInfo call the memos stand-in answered. */
const accessInfoCalls: string[][] = [];
const spaceMembers = new Map<string, string[]>();

let broker: ServiceBroker;
let documents: SqliteDocumentStore;
let blobDir: string;

const as = (user: Caller | null) => ({ meta: { user } });
const link = (id: string) => ({ attachmentId: id, attachment: { filename: `${id}.txt`, externalLink: `https://example.com/${id}` } });

beforeAll(async () => {
	blobDir = await mkdtemp(path.join(os.tmpdir(), "attachments-service-"));
	documents = new SqliteDocumentStore({ dir: null });
	broker = new ServiceBroker({ logger: false });
	attachResources(broker, { config: loadConfig({ LOG_LEVEL: "silent" }), documents, blobs: new LocalBlobStore({ dir: blobDir }) });
	broker.createService(AttachmentsService);
	broker.createService(
		fakeService("memos", [
			fake(memosActions.accessInfo, ctx => {
				accessInfoCalls.push(ctx.params.memoIds);
				const user = (ctx.meta as { user?: Caller | null }).user ?? null;
				return ctx.params.memoIds.flatMap(id => {
					const memo = memos.get(id);
					if (memo === undefined) return [];
					const { readers, ...info } = memo;
					const read = user === null ? "UNAUTHENTICATED" : readers.includes(user.id) ? "OK" : "PERMISSION_DENIED";
					return [{ ...info, read }];
				});
			}),
			fake(memosActions.touch, ctx => void touched.push(ctx.params.memoId)),
			fake(memosActions.resolveShare, () => null)
		])
	);
	broker.createService(
		fakeService("spaces", [
			fake(spacesActions.spaceMembers, ctx => {
				const members = spaceMembers.get(ctx.params.spaceId) ?? [];
				return { exists: true, roles: Object.fromEntries(ctx.params.userIds.filter(id => members.includes(id)).map(id => [id, "MEMBER" as const])) };
			})
		])
	);
	broker.createService(fakeService("instance", [fake(settingValue, () => ({ uploadSizeLimitMb: 1 }))]));
	await broker.start();
	memos.set("m-alice", { id: "m-alice", creatorId: alice.id, spaceId: "s1", publicRead: false, spaceReadable: true, readers: [alice.id, bob.id] });
	memos.set("m-private", { id: "m-private", creatorId: alice.id, spaceId: null, publicRead: false, spaceReadable: false, readers: [alice.id] });
	memos.set("m-bob", { id: "m-bob", creatorId: bob.id, spaceId: "s1", publicRead: false, spaceReadable: true, readers: [alice.id, bob.id] });
	spaceMembers.set("s1", [alice.id, bob.id]);
});

afterAll(async () => {
	await broker.stop();
	await documents.close();
	await rm(blobDir, { recursive: true, force: true });
});

test("an attachment can be created on the caller's own memo only (contract 8.2)", async () => {
	const created = await call(broker, attachmentsActions.createAttachment, { ...link("a1"), attachment: { ...link("a1").attachment, memo: "memos/m-alice" } }, as(alice));
	expect(created).toMatchObject({ name: "attachments/a1", memo: "memos/m-alice", externalLink: "https://example.com/a1" });
	const other = await rejectionOf(call(broker, attachmentsActions.createAttachment, { ...link("a2"), attachment: { ...link("a2").attachment, memo: "memos/m-bob" } }, as(alice)));
	expect(other.type).toBe("PERMISSION_DENIED");
	const missing = await rejectionOf(call(broker, attachmentsActions.createAttachment, { ...link("a3"), attachment: { ...link("a3").attachment, memo: "memos/nope" } }, as(alice)));
	expect(missing.type).toBe("NOT_FOUND");
	expect((await rejectionOf(call(broker, attachmentsActions.createAttachment, link("a1"), as(alice)))).type).toBe("ALREADY_EXISTS");
	expect((await rejectionOf(call(broker, attachmentsActions.createAttachment, link("a4"), as(null)))).type).toBe("UNAUTHENTICATED");
});

test("bytes are stored, counted and limited by the STORAGE setting", async () => {
	const bytes = Buffer.from("hello attachments");
	const params = { attachmentId: "b1", attachment: { filename: "b1.txt" }, [STREAM_LENGTH_PARAM]: bytes.length };
	const created = await call(broker, attachmentsActions.createAttachment, params, { ...as(alice), stream: Readable.from([bytes]) });
	expect(created).toMatchObject({ name: "attachments/b1", size: String(bytes.length), type: "text/plain" });
	const stats = await call(broker, attachmentsActions.stats);
	expect(stats.attachmentBytes).toBeGreaterThanOrEqual(bytes.length);
	expect(stats.localStorageBytes).toBe(stats.attachmentBytes);
	const big = { attachmentId: "b2", attachment: { filename: "b2.bin" }, [STREAM_LENGTH_PARAM]: 1024 * 1024 + 1 };
	expect((await rejectionOf(call(broker, attachmentsActions.createAttachment, big, { ...as(alice), stream: Readable.from([Buffer.alloc(1)]) }))).type).toBe("INVALID_ARGUMENT");
});

test("SetMemoAttachments keeps the given order, unlinks the rest and touches the memo (contract 7.9)", async () => {
	for (const id of ["s1", "s2", "s3"]) await call(broker, attachmentsActions.createAttachment, link(id), as(alice));
	const names = (ids: string[]) => ids.map(id => ({ name: `attachments/${id}` }));
	await call(broker, attachmentsActions.setMemoAttachments, { memo: "m-private", attachments: names(["s3", "s1", "s2"]) }, as(alice));
	await call(broker, attachmentsActions.setMemoAttachments, { memo: "m-private", attachments: names(["s2", "s3"]) }, as(alice));
	expect(touched.filter(id => id === "m-private")).toHaveLength(2);
	const listed = await call(broker, attachmentsActions.listMemoAttachments, { memo: "m-private" }, as(alice));
	expect((listed.attachments as { name: string }[]).map(a => a.name)).toEqual(["attachments/s2", "attachments/s3"]);
	expect(await call(broker, attachmentsActions.getAttachment, { attachment: "s1" }, as(alice))).not.toHaveProperty("memo");
	// Linked elsewhere: refused; not the creator: refused.
	const elsewhere = await rejectionOf(call(broker, attachmentsActions.setMemoAttachments, { memo: "m-alice", attachments: names(["s2"]) }, as(alice)));
	expect(elsewhere.type).toBe("FAILED_PRECONDITION");
	const notCreator = await rejectionOf(call(broker, attachmentsActions.setMemoAttachments, { memo: "m-private", attachments: [] }, as(bob)));
	expect(notCreator.type).toBe("PERMISSION_DENIED");
});

test("a linked attachment is read under its memo's rule (contract 8.1)", async () => {
	expect((await rejectionOf(call(broker, attachmentsActions.getAttachment, { attachment: "s2" }, as(bob)))).type).toBe("PERMISSION_DENIED");
	expect((await rejectionOf(call(broker, attachmentsActions.getAttachment, { attachment: "s2" }, as(null)))).type).toBe("UNAUTHENTICATED");
	expect(await call(broker, attachmentsActions.getAttachment, { attachment: "a1" }, as(bob))).toMatchObject({ name: "attachments/a1" });
});

test("ListAttachments widens to a space's readable attachments for its members only (contract 8.1)", async () => {
	await call(broker, attachmentsActions.createAttachment, { ...link("bob1"), attachment: { ...link("bob1").attachment, memo: "memos/m-bob" } }, as(bob));
	const inSpace = await call(broker, attachmentsActions.listAttachments, { filter: 'space == "spaces/s1"' }, as(alice));
	expect((inSpace.attachments as { name: string }[]).map(a => a.name).sort()).toEqual(["attachments/a1", "attachments/bob1"]);
	spaceMembers.set("s1", [bob.id]);
	const notMember = await call(broker, attachmentsActions.listAttachments, { filter: 'space == "spaces/s1"' }, as(alice));
	expect((notMember.attachments as { name: string }[]).map(a => a.name)).toEqual(["attachments/a1"]);
	spaceMembers.set("s1", [alice.id, bob.id]);
});

test("ListAttachments asks the memos service once per page, for every memo of the page together", async () => {
	for (const [id, memo] of [["p1", "m-alice"], ["p2", "m-private"], ["p3", "m-alice"], ["p4", "m-private"]]) {
		await call(broker, attachmentsActions.createAttachment, { ...link(id), attachment: { ...link(id).attachment, memo: `memos/${memo}` } }, as(alice));
	}
	const pages: string[][] = [];
	const callsPerPage: number[] = [];
	let pageToken = "";
	do {
		accessInfoCalls.length = 0;
		const page = await call(broker, attachmentsActions.listAttachments, { pageSize: 3, pageToken }, as(alice));
		pages.push((page.attachments as { name: string }[]).map(a => a.name));
		callsPerPage.push(accessInfoCalls.length);
		pageToken = page.nextPageToken as string;
	} while (pageToken !== "");
	// The four linked ones and the others span several pages; none asks more than once.
	expect(pages.length).toBeGreaterThan(1);
	expect(Math.max(...callsPerPage)).toBe(1);
	expect(pages.flat()).toEqual(expect.arrayContaining(["p1", "p2", "p3", "p4"].map(id => `attachments/${id}`)));
});

test("a soft-deleted memo hides its attachments; a purged one takes them along (contract 7.6)", async () => {
	await call(broker, attachmentsActions.setMemosDeleted, { memoIds: ["m-bob"], deleted: true });
	const own = await call(broker, attachmentsActions.listAttachments, {}, as(bob));
	expect(own.attachments).toEqual([]);
	await call(broker, attachmentsActions.deleteForMemos, { memoIds: ["m-bob"] });
	await call(broker, attachmentsActions.setMemosDeleted, { memoIds: ["m-bob"], deleted: false });
	expect((await call(broker, attachmentsActions.listAttachments, {}, as(bob))).attachments).toEqual([]);
	expect((await rejectionOf(call(broker, attachmentsActions.getAttachment, { attachment: "bob1" }, as(bob)))).type).toBe("NOT_FOUND");
});
