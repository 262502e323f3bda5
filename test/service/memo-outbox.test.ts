import { ServiceBroker, type Service } from "moleculer";
import { attachmentsActions } from "../../services/attachments/attachments.contract.js";
import { authActions, type MemoChangeRecord } from "../../services/auth/auth.contract.js";
import type { MemoDoc } from "../../services/memos/memo-doc.js";
import MemosService from "../../services/memos/memos.service.js";
import { memosActions } from "../../services/memos/memos.contract.js";
import { spacesActions } from "../../services/spaces/spaces.contract.js";
import type { Caller } from "../../shared/caller.js";
import { call } from "../../shared/contract.js";
import { unavailable } from "../../shared/errors.js";
import { loadConfig } from "../../shared/runtime/config.js";
import { attachResources } from "../../shared/runtime/resources.js";
import { settingValue } from "../../shared/settings/instance-settings.contract.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { fake, fakeService } from "../support/fake-service.js";
import { waitFor } from "../support/processes.js";

/**
 * The memos' outbox for webhooks (contract 17, memo-outbox.ts): every change is stored with its
 * outbox entry in one write, so a change made while the auth service cannot record it is kept
 * and recorded later by the relay pass; nothing is recorded for a refused change, and a purge
 * waits until the memo's changes are recorded.
 */

const alice: Caller = { id: "u-alice", username: "alice", role: "USER" };
const bob: Caller = { id: "u-bob", username: "bob", role: "USER" };
const users = [alice, bob];

let broker: ServiceBroker;
let documents: SqliteDocumentStore;
const recorded: MemoChangeRecord[] = [];
let authDown = false;
/** Runs inside the next recordMemoChanges call, once: a change stored while a relay is under way. */
let duringRecord: (() => Promise<void>) | null = null;

const as = (user: Caller) => ({ meta: { user, requestTime: Date.now() } });
const memos = () => documents.collection<MemoDoc>("memos");

beforeAll(async () => {
	documents = new SqliteDocumentStore({ dir: null });
	broker = new ServiceBroker({ logger: false });
	attachResources(broker, { config: loadConfig({ LOG_LEVEL: "silent" }), documents });
	broker.createService({ ...MemosService, settings: { ...MemosService.settings, outboxRelayIntervalMs: 50 } });
	broker.createService(
		fakeService("auth", [
			fake(authActions.lookupUsers, ctx => users.filter(u => (ctx.params.ids ?? []).includes(u.id)).map(u => ({ id: u.id, username: u.username, role: u.role, state: "NORMAL" as const }))),
			fake(authActions.defaultMemoVisibility, () => "PRIVATE" as const),
			fake(authActions.recordMemoChanges, async ctx => {
				if (authDown) throw unavailable("auth is down");
				// Idempotent per change, as auth.recordMemoChanges is: the relay pass may hand over what the request is handing over.
				recorded.push(...ctx.params.changes.filter(change => !recorded.some(known => known.changeId === change.changeId)));
				const meanwhile = duringRecord;
				duringRecord = null;
				if (meanwhile) await meanwhile();
				return { recorded: ctx.params.changes.length };
			})
		])
	);
	broker.createService(fakeService("spaces", [fake(spacesActions.membershipsOf, () => []), fake(spacesActions.spaceMembers, () => ({ exists: false, roles: {} }))]));
	broker.createService(
		fakeService("attachments", [
			fake(attachmentsActions.forMemos, () => ({})),
			fake(attachmentsActions.setMemosDeleted, () => undefined),
			fake(attachmentsActions.deleteForMemos, () => undefined)
		])
	);
	broker.createService(fakeService("instance", [fake(settingValue, () => ({ contentLengthLimit: 8192 }))]));
	await broker.start();
});

afterAll(async () => {
	await broker.stop();
	await documents.close();
});

beforeEach(() => {
	recorded.length = 0;
	authDown = false;
});

test("each change is recorded once, right away, with the memo as the change left it; the outbox is empty after", async () => {
	await call(broker, memosActions.createMemo, { memoId: "m1", memo: { content: "one" } }, as(alice));
	await call(broker, memosActions.updateMemo, { memo: "m1", updateMask: "content", patch: { content: "two" } }, as(alice));
	await call(broker, memosActions.deleteMemo, { memo: "m1" }, as(alice));
	expect(recorded.map(change => [change.event, change.recipientId, change.creator, change.memo.name, change.memo.content])).toEqual([
		["memo.created", alice.id, "users/alice", "memos/m1", "one"],
		["memo.updated", alice.id, "users/alice", "memos/m1", "two"],
		["memo.deleted", alice.id, "users/alice", "memos/m1", "two"]
	]);
	expect(new Set(recorded.map(change => change.changeId)).size).toBe(3);
	const stored = await memos().findOne({ _id: "m1" });
	expect({ outbox: stored?.outbox, pending: stored?.outboxPending }).toEqual({ outbox: [], pending: undefined });
});

test("a comment is memo.created for its creator and memo.comment.created for the commented memo's creator, as upstream", async () => {
	await call(broker, memosActions.createMemo, { memoId: "p1", memo: { content: "parent", visibility: "PROTECTED" } }, as(alice));
	recorded.length = 0;
	await call(broker, memosActions.createMemoComment, { memo: "p1", commentId: "c1", comment: { content: "a reply" } }, as(bob));
	expect(recorded.map(change => [change.event, change.recipientId, change.creator, change.memo.name, change.memo.content])).toEqual([
		["memo.created", bob.id, "users/bob", "memos/c1", "a reply"],
		["memo.comment.created", alice.id, "users/bob", "memos/c1", "a reply"]
	]);
});

test("an entry stored while the relay records the others stays in the outbox and is recorded by the relay pass", async () => {
	duringRecord = async () => {
		await memos().update({ _id: "m5" }, { $push: { outbox: { id: "late-entry", event: "memo.updated", time: Date.now() } }, $set: { outboxPending: true } });
	};
	await call(broker, memosActions.createMemo, { memoId: "m5", memo: { content: "raced" } }, as(alice));
	expect(recorded.map(change => change.event)).toContain("memo.created");
	await waitFor("the late entry's relay", async () => (recorded.some(change => change.changeId === "late-entry") ? true : undefined), 60000);
	await waitFor("an empty outbox", async () => ((await memos().findOne({ _id: "m5" }))?.outboxPending === undefined ? true : undefined), 60000);
	expect((await memos().findOne({ _id: "m5" }))?.outbox).toEqual([]);
});

test("a refused change stores no entry", async () => {
	await call(broker, memosActions.createMemo, { memoId: "m2", memo: { content: "mine" } }, as(alice));
	recorded.length = 0;
	await expect(call(broker, memosActions.updateMemo, { memo: "m2", updateMask: "content", patch: { content: "x" } }, as(bob))).rejects.toThrow();
	expect((await memos().findOne({ _id: "m2" }))?.outbox).toEqual([]);
	expect(recorded).toEqual([]);
});

test("changes made while auth cannot record them are kept in the memo and recorded by the relay pass, in order", async () => {
	authDown = true;
	await call(broker, memosActions.createMemo, { memoId: "m3", memo: { content: "while down" } }, as(alice));
	await call(broker, memosActions.updateMemo, { memo: "m3", updateMask: "content", patch: { content: "still down" } }, as(alice));
	const kept = await memos().findOne({ _id: "m3" });
	expect(kept?.outboxPending).toBe(true);
	expect(kept?.outbox?.map(entry => entry.event)).toEqual(["memo.created", "memo.updated"]);
	expect(recorded).toEqual([]);
	authDown = false;
	await waitFor("the relay pass", async () => ((await memos().findOne({ _id: "m3" }))?.outboxPending === undefined ? true : undefined), 60000);
	expect(recorded.map(change => [change.event, change.changeId])).toEqual(kept!.outbox!.map(entry => [entry.event, entry.id]));
	// Rendered as the memo then is, as its creator sees it.
	expect(recorded.map(change => change.memo.content)).toEqual(["still down", "still down"]);
});

test("a purge waits until the memo's changes are recorded", async () => {
	await call(broker, memosActions.createMemo, { memoId: "m4", memo: { content: "to purge" } }, as(alice));
	recorded.length = 0;
	authDown = true;
	await expect(call(broker, memosActions.deleteMemo, { memo: "m4", force: true }, as(alice))).rejects.toThrow();
	const marked = await memos().findOne({ _id: "m4" });
	expect({ cleanup: marked?.cleanup, events: marked?.outbox?.map(entry => entry.event) }).toEqual({ cleanup: "purge", events: ["memo.deleted"] });
	authDown = false;
	// The clean-up's repair pass completes it, the deletion recorded first.
	await (broker.getLocalService("memos") as Service & { purgeExpiredMemos(now: number): Promise<number> }).purgeExpiredMemos(Date.now());
	expect(await memos().findOne({ _id: "m4" })).toBeNull();
	expect(recorded.map(change => [change.event, change.memo.name, change.memo.content])).toEqual([["memo.deleted", "memos/m4", "to purge"]]);
});
