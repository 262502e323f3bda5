import type { Context, ServiceBroker } from "moleculer";
import { attachmentsActions } from "../../services/attachments/attachments.contract.js";
import { memoEvents, memosActions, type ChangeReaders, type MemoChangeEvent } from "../../services/memos/memos.contract.js";
import { spacesActions } from "../../services/spaces/spaces.contract.js";
import type { Caller } from "../../shared/caller.js";
import { call, onEvent } from "../../shared/contract.js";
import { settingValue } from "../../shared/settings/instance-settings.contract.js";
import type { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { fake, fakeService } from "../support/fake-service.js";
import { memosBroker } from "../support/memos-broker.js";
import { waitFor } from "../support/processes.js";
import { rejectionOf } from "../support/service-errors.js";

/**
 * The change events of the memos service (contract 17), as a subscriber on another service of
 * the broker hears them: one per stored change, after it, ids only.
 */

const alice: Caller = { id: "u-alice", username: "alice", role: "USER" };
const bob: Caller = { id: "u-bob", username: "bob", role: "USER" };
const users = [alice, bob];

interface Heard {
	event: string;
	payload: MemoChangeEvent;
}

/** The spaces of each membersOfSpaces call, in order. */
const membersOfSpacesCalls: string[][] = [];

let broker: ServiceBroker;
let documents: SqliteDocumentStore;
const heard: Heard[] = [];
const time = Date.UTC(2026, 2, 1, 9, 30);
const at = new Date(time).toISOString();

const as = (user: Caller) => ({ meta: { user, requestTime: time } });

/** The events heard since the last call, once `count` of them arrived. */
async function next(count: number): Promise<Heard[]> {
	await waitFor(`${count} memo event(s)`, async () => (heard.length >= count ? true : undefined), 60000);
	return heard.splice(0, heard.length);
}

beforeAll(async () => {
	({ broker, documents } = memosBroker(users));
	broker.createService(
		fakeService("spaces", [
			fake(spacesActions.membershipsOf, ctx => (ctx.params.userId === alice.id ? ["s1", "s2", "s3"].map(spaceId => ({ spaceId, role: "ADMIN" as const })) : [])),
			fake(spacesActions.spaceMembers, ctx => ({ exists: true, roles: ctx.params.userIds.includes(alice.id) ? { [alice.id]: "ADMIN" as const } : {} })),
			fake(spacesActions.membersOfSpaces, ctx => {
				membersOfSpacesCalls.push(ctx.params.spaceIds);
				// alice is in every space, bob in "s2", carol in "s3".
				const members = (spaceId: string) => ctx.params.userIds.filter(id => id === alice.id || (id === bob.id && spaceId === "s2") || (id === "u-carol" && spaceId === "s3"));
				return Object.fromEntries(ctx.params.spaceIds.map(spaceId => [spaceId, members(spaceId)]).filter(([, ids]) => ids.length > 0));
			})
		])
	);
	broker.createService(
		fakeService("attachments", [
			fake(attachmentsActions.linkForMemo, () => undefined),
			fake(attachmentsActions.forMemos, () => ({})),
			fake(attachmentsActions.setMemosDeleted, () => undefined),
			fake(attachmentsActions.deleteForMemos, () => undefined),
			fake(attachmentsActions.followMemo, () => undefined),
			fake(attachmentsActions.leaveSpace, () => undefined)
		])
	);
	broker.createService(fakeService("instance", [fake(settingValue, () => ({ contentLengthLimit: 8192 }))]));
	broker.createService({
		name: "listener",
		events: onEvent(memoEvents.changed, (ctx: Context<MemoChangeEvent>) => {
			heard.push({ event: String(ctx.eventName), payload: ctx.params });
		})
	});
	await broker.start();
});

afterAll(async () => {
	await broker.stop();
	await documents.close();
});

describe("memo change events (contract 17)", () => {
	test("create, update and delete of a memo, each with ids only", async () => {
		await call(broker, memosActions.createMemo, { memoId: "m1", memo: { content: "secret words", visibility: "SPACE", space: "spaces/s1" } }, as(alice));
		const base = { memo: "memos/m1", creator: "users/u-alice", spaceId: "s1", actor: "users/u-alice", at };
		expect(await next(1)).toEqual([{ event: "memo.created", payload: base }]);

		await call(broker, memosActions.updateMemo, { memo: "m1", updateMask: "content", patch: { content: "other words" } }, as(alice));
		expect(await next(1)).toEqual([{ event: "memo.updated", payload: base }]);

		await call(broker, memosActions.deleteMemo, { memo: "m1" }, as(alice));
		const [deleted] = await next(1);
		expect(deleted).toEqual({ event: "memo.deleted", payload: base });
		expect(JSON.stringify(deleted)).not.toContain("words");
	});

	test("a comment is memo.comment.created with its parent, never memo.created too; reactions name the reacted memo", async () => {
		await call(broker, memosActions.createMemo, { memoId: "m2", memo: { content: "hello", visibility: "PROTECTED" } }, as(alice));
		await next(1);
		await call(broker, memosActions.createMemoComment, { memo: "m2", commentId: "c1", comment: { content: "a reply", visibility: "PROTECTED" } }, as(bob));
		expect(await next(1)).toEqual([
			{ event: "memo.comment.created", payload: { memo: "memos/c1", creator: "users/u-bob", spaceId: null, parent: "memos/m2", actor: "users/u-bob", at } }
		]);

		const reaction = await call(broker, memosActions.upsertMemoReaction, { memo: "c1", reaction: { reactionType: "👍" } }, as(alice));
		const onComment = { memo: "memos/c1", creator: "users/u-bob", spaceId: null, parent: "memos/m2", actor: "users/u-alice", at };
		expect(await next(1)).toEqual([{ event: "memo.reaction.upserted", payload: onComment }]);

		const reactionId = String(reaction.name).split("/").pop();
		await call(broker, memosActions.deleteMemoReaction, { memo: "c1", reaction: reactionId }, as(alice));
		expect(await next(1)).toEqual([{ event: "memo.reaction.deleted", payload: onComment }]);

		await call(broker, memosActions.updateMemo, { memo: "c1", updateMask: "content", patch: { content: "edited" } }, as(bob));
		expect(await next(1)).toEqual([{ event: "memo.updated", payload: { ...onComment, actor: "users/u-bob" } }]);
	});

	test("a refused change announces nothing", async () => {
		await call(broker, memosActions.createMemo, { memoId: "m3", memo: { content: "mine" } }, as(alice));
		await next(1);
		expect((await rejectionOf(call(broker, memosActions.updateMemo, { memo: "m3", updateMask: "content", patch: { content: "x" } }, as(bob)))).type).toBe(
			"PERMISSION_DENIED"
		);
		expect((await rejectionOf(call(broker, memosActions.deleteMemo, { memo: "m3" }, as(bob)))).type).toBe("PERMISSION_DENIED");
		// A later change's event is the next one heard: the refused ones left none before it.
		await call(broker, memosActions.deleteMemo, { memo: "m3", force: true }, as(alice));
		expect(await next(1)).toEqual([
			{ event: "memo.deleted", payload: { memo: "memos/m3", creator: "users/u-alice", spaceId: null, actor: "users/u-alice", at } }
		]);
	});
});

describe("who may be told of a change (memos.changeReaders)", () => {
	const everyone = [alice.id, bob.id, "u-carol"];
	const readers = (event: string, memo: string, parent?: string): Promise<ChangeReaders[]> => {
		const change = { memo: `memos/${memo}`, creator: "users/u-alice", spaceId: null, ...(parent === undefined ? {} : { parent: `memos/${parent}` }), actor: "users/u-alice", at };
		return call(broker, memosActions.changeReaders, { changes: [{ event, change }], userIds: everyone });
	};
	const create = async (id: string, memo: Record<string, unknown>) => {
		await call(broker, memosActions.createMemo, { memoId: id, memo: { content: "x", ...memo } }, as(alice));
	};
	const signedIn = { everySignedIn: true, userIds: [] };
	const only = (...userIds: string[]) => ({ everySignedIn: false, userIds });

	test("by visibility and state: every signed-in user, the creator, the space's members", async () => {
		await create("r-protected", { visibility: "PROTECTED" });
		await create("r-private", {});
		await create("r-space", { visibility: "SPACE", space: "spaces/s1" });
		await create("r-archived", { visibility: "PUBLIC" });
		await call(broker, memosActions.updateMemo, { memo: "r-archived", updateMask: "state", patch: { state: "ARCHIVED" } }, as(alice));
		expect(await readers("memo.updated", "r-protected")).toEqual([signedIn]);
		expect(await readers("memo.updated", "r-private")).toEqual([only(alice.id)]);
		expect(await readers("memo.updated", "r-space")).toEqual([only(alice.id)]);
		expect(await readers("memo.updated", "r-archived")).toEqual([only(alice.id)]);
		expect(await readers("memo.updated", "missing")).toEqual([only()]);
		// A comment's readers must read the memo it comments on too.
		expect(await readers("memo.comment.created", "r-protected", "r-private")).toEqual([only(alice.id)]);
	});

	test("a batch of changes in several spaces asks the spaces service once, for all of them (DESIGN: bounded calls across the bus)", async () => {
		for (const space of ["s1", "s2", "s3"]) await create(`r-in-${space}`, { visibility: "SPACE", space: `spaces/${space}` });
		const change = (memo: string) => ({ event: "memo.updated", change: { memo: `memos/${memo}`, creator: "users/u-alice", spaceId: null, actor: "users/u-alice", at } });
		membersOfSpacesCalls.length = 0;
		const answer = await call(broker, memosActions.changeReaders, { changes: ["r-in-s1", "r-in-s2", "r-in-s3", "r-in-s1"].map(change), userIds: everyone });
		expect(answer).toEqual([only(alice.id), only(alice.id, bob.id), only(alice.id, "u-carol"), only(alice.id)]);
		expect(membersOfSpacesCalls.map(ids => [...ids].sort())).toEqual([["s1", "s2", "s3"]]);
		// Nothing in a space: no call at all.
		expect(await readers("memo.updated", "r-protected")).toEqual([signedIn]);
		expect(membersOfSpacesCalls).toHaveLength(1);
	});

	test("a deletion goes to those who could read the memo just before; any other change of a deleted memo to no one", async () => {
		await create("r-deleted", { visibility: "PROTECTED" });
		await create("r-purged", { visibility: "PROTECTED" });
		await call(broker, memosActions.deleteMemo, { memo: "r-deleted" }, as(alice));
		await call(broker, memosActions.deleteMemo, { memo: "r-purged", force: true }, as(alice));
		expect(await readers("memo.deleted", "r-deleted")).toEqual([signedIn]);
		expect(await readers("memo.updated", "r-deleted")).toEqual([only()]);
		// Purged: what is left to know is its creator.
		expect(await readers("memo.deleted", "r-purged")).toEqual([only(alice.id)]);
	});
});
