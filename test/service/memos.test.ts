import type { ServiceBroker } from "moleculer";
import { attachmentsActions, type LinkTarget } from "../../services/attachments/attachments.contract.js";
import { memosActions } from "../../services/memos/memos.contract.js";
import { memosStore } from "../../services/memos/memos-store.js";
import { spacesActions, spacesEvents, type Membership } from "../../services/spaces/spaces.contract.js";
import type { Caller } from "../../shared/caller.js";
import { broadcast, call } from "../../shared/contract.js";
import { settingValue } from "../../shared/settings/instance-settings.contract.js";
import type { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { fake, fakeService } from "../support/fake-service.js";
import { memosBroker } from "../support/memos-broker.js";
import { rejectionOf } from "../support/service-errors.js";

/**
 * The memos service on a bare broker: its rules through its actions, with typed fakes of what
 * it calls (auth's user look-up, spaces' memberships, the attachments of memos, the instance
 * settings) and the document store in memory.
 */

const alice: Caller = { id: "u-alice", username: "alice", role: "USER" } as Caller;
const bob: Caller = { id: "u-bob", username: "bob", role: "USER" } as Caller;
const carol: Caller = { id: "u-carol", username: "carol", role: "USER" } as Caller;
const admin: Caller = { id: "u-admin", username: "admin", role: "ADMIN" } as Caller;
const users = [alice, bob, carol, admin];

/** What the fakes were asked, per action. */
const calls = {
	membershipsOf: [] as string[],
	linkForMemo: [] as { memo: LinkTarget; apply: boolean }[],
	setMemosDeleted: [] as string[][],
	deleteForMemos: [] as string[][],
	followMemo: [] as { memoId: string; spaceId: string | null; spaceReadable: boolean }[],
	leaveSpace: [] as string[]
};
/** Space id → member ids (role MEMBER unless listed in `spaceAdmins`). */
const spaceMembers = new Map<string, string[]>();
const spaceAdmins = new Map<string, string[]>();

let broker: ServiceBroker;
let documents: SqliteDocumentStore;
let clock = Date.UTC(2026, 0, 1);

const as = (user: Caller | null, time = clock) => ({ meta: { user, requestTime: time } });
const memoBody = (content: string, extra: Record<string, unknown> = {}) => ({ memo: { content, ...extra } });

function membershipsOf(userId: string): Membership[] {
	return [...spaceMembers].flatMap(([spaceId, members]) =>
		members.includes(userId) ? [{ spaceId, role: spaceAdmins.get(spaceId)?.includes(userId) ? "ADMIN" : "MEMBER" } as Membership] : []
	);
}

/** Creates a memo as `user` with an explicit id, and moves the clock so creation times differ. */
async function create(user: Caller, id: string, content: string, extra: Record<string, unknown> = {}) {
	clock += 1000;
	return call(broker, memosActions.createMemo, { memoId: id, ...memoBody(content, extra) }, as(user));
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
	return String((await rejectionOf(promise)).type);
}

/** While set, the fake attachments service fails to answer a memo's attachments. */
let forMemosFails = false;

const names = (list: unknown) => (list as { name: string }[]).map(item => item.name);

beforeAll(async () => {
	({ broker, documents } = memosBroker(users));
	broker.createService(
		fakeService("spaces", [
			fake(spacesActions.membershipsOf, ctx => {
				calls.membershipsOf.push(ctx.params.userId);
				return membershipsOf(ctx.params.userId);
			}),
			fake(spacesActions.spaceMembers, ctx => {
				const members = spaceMembers.get(ctx.params.spaceId);
				const roles = Object.fromEntries(ctx.params.userIds.filter(id => members?.includes(id)).map(id => [id, "MEMBER" as const]));
				return { exists: members !== undefined, roles };
			})
		])
	);
	broker.createService(
		fakeService("attachments", [
			fake(attachmentsActions.linkForMemo, ctx => {
				calls.linkForMemo.push({ memo: ctx.params.memo, apply: ctx.params.apply === true });
				// The check answers the references it accepted, the apply the linked attachments.
				return ctx.params.apply === true ? [{ name: "attachments/a1" }] : ctx.params.attachments;
			}),
			fake(attachmentsActions.forMemos, () => {
				if (forMemosFails) throw new Error("attachments unavailable");
				return {};
			}),
			fake(attachmentsActions.setMemosDeleted, ctx => void calls.setMemosDeleted.push(ctx.params.memoIds)),
			fake(attachmentsActions.deleteForMemos, ctx => void calls.deleteForMemos.push(ctx.params.memoIds)),
			fake(attachmentsActions.followMemo, ctx => void calls.followMemo.push(ctx.params)),
			fake(attachmentsActions.leaveSpace, ctx => void calls.leaveSpace.push(ctx.params.spaceId))
		])
	);
	broker.createService(fakeService("instance", [fake(settingValue, () => ({ contentLengthLimit: 8192 }))]));
	spaceMembers.set("s1", [alice.id]);
	spaceAdmins.set("s1", [alice.id]);
	await broker.start();

	await create(alice, "a-private", "private #note");
	await create(alice, "a-protected", "protected", { visibility: "PROTECTED" });
	await create(alice, "a-public", "public", { visibility: "PUBLIC" });
	await create(alice, "a-space", "space", { visibility: "SPACE", space: "spaces/s1" });
});

afterAll(async () => {
	await broker.stop();
	await documents.close();
});

describe("the read rule (contract 1.10, 3.2)", () => {
	test("each visibility answers each caller as the contract says", async () => {
		const get = (id: string, user: Caller | null) => call(broker, memosActions.getMemo, { memo: id }, as(user));
		for (const id of ["a-private", "a-protected", "a-public", "a-space"]) expect((await get(id, alice)).name).toBe(`memos/${id}`);
		expect(await codeOf(get("a-private", bob))).toBe("PERMISSION_DENIED");
		expect((await get("a-protected", bob)).creator).toBe("users/alice");
		expect(await codeOf(get("a-protected", null))).toBe("UNAUTHENTICATED");
		expect((await get("a-public", null)).visibility).toBe("PUBLIC");
		// SPACE memos: members of the space only, never instance admins as such (3.4).
		expect(await codeOf(get("a-space", bob))).toBe("PERMISSION_DENIED");
		expect(await codeOf(get("a-space", admin))).toBe("PERMISSION_DENIED");
		expect(await codeOf(get("missing", alice))).toBe("NOT_FOUND");
	});

	test("a membership event drops the cached memberships at once", async () => {
		const get = () => call(broker, memosActions.getMemo, { memo: "a-space" }, as(bob));
		expect(await codeOf(get())).toBe("PERMISSION_DENIED");
		spaceMembers.set("s1", [alice.id, bob.id]);
		await broadcast(broker, spacesEvents.memberAdded, { spaceId: "s1", userIds: [bob.id] });
		expect((await get()).space).toBe("spaces/s1");
		spaceMembers.set("s1", [alice.id]);
		await broadcast(broker, spacesEvents.memberRemoved, { spaceId: "s1", userIds: [bob.id] });
		expect(await codeOf(get())).toBe("PERMISSION_DENIED");
	});

	test("an archived memo is its creator's only; a deleted one is nobody's", async () => {
		await create(alice, "a-archived", "archived", { visibility: "PUBLIC" });
		await call(broker, memosActions.updateMemo, { memo: "a-archived", updateMask: "state", patch: { state: "ARCHIVED" } }, as(alice));
		expect((await call(broker, memosActions.getMemo, { memo: "a-archived" }, as(alice))).state).toBe("ARCHIVED");
		expect(await codeOf(call(broker, memosActions.getMemo, { memo: "a-archived" }, as(admin)))).toBe("NOT_FOUND");
		await call(broker, memosActions.deleteMemo, { memo: "a-archived" }, as(alice));
		expect(await codeOf(call(broker, memosActions.getMemo, { memo: "a-archived" }, as(alice)))).toBe("NOT_FOUND");
	});

	test("accessInfo answers the read rule per caller for the attachments service", async () => {
		const info = await call(broker, memosActions.accessInfo, { memoIds: ["a-private", "a-public", "missing"] }, as(bob));
		const byId = Object.fromEntries(info.map(item => [item.id, item]));
		expect(Object.keys(byId).sort()).toEqual(["a-private", "a-public"]);
		expect(byId["a-private"]).toMatchObject({ read: "PERMISSION_DENIED", publicRead: false, creatorId: alice.id });
		expect(byId["a-public"]).toMatchObject({ read: "OK", publicRead: true });
	});
});

describe("writes (contract 7.3, 7.5, 7.6)", () => {
	test("only the creator or an admin updates; a SPACE memo needs a space", async () => {
		const update = (user: Caller, patch: Record<string, unknown>, mask: string) => call(broker, memosActions.updateMemo, { memo: "a-protected", updateMask: mask, patch }, as(user));
		expect(await codeOf(update(bob, { content: "bob was here" }, "content"))).toBe("PERMISSION_DENIED");
		expect((await update(admin, { content: "edited #tag" }, "content")).tags).toEqual(["tag"]);
		expect(await codeOf(update(alice, { visibility: "SPACE" }, "visibility"))).toBe("INVALID_ARGUMENT");
		expect(await codeOf(call(broker, memosActions.createMemo, memoBody("x", { visibility: "SPACE" }), as(alice)))).toBe("INVALID_ARGUMENT");
		// Placing a memo in a space the caller does not belong to: the space is masked.
		expect(await codeOf(call(broker, memosActions.createMemo, memoBody("x", { space: "spaces/s1" }), as(bob)))).toBe("NOT_FOUND");
	});

	test("moving a memo to a space checks the destination and tells the attachments service", async () => {
		await create(alice, "a-mover", "moves", { visibility: "PROTECTED" });
		const move = (space: string) => call(broker, memosActions.updateMemo, { memo: "a-mover", updateMask: "space", patch: { space } }, as(alice));
		expect(await codeOf(move("spaces/nowhere"))).toBe("NOT_FOUND");
		const before = calls.followMemo.length;
		expect((await move("spaces/s1")).space).toBe("spaces/s1");
		expect(calls.followMemo.slice(before)).toEqual([{ memoId: "a-mover", spaceId: "s1", spaceReadable: true }]);
	});

	test("attachments given on create are checked before the insert and applied after it", async () => {
		const before = calls.linkForMemo.length;
		const created = await call(broker, memosActions.createMemo, { memoId: "a-attached", ...memoBody("with file", { attachments: [{ name: "attachments/a1" }] }) }, as(alice));
		expect(created.attachments).toEqual([{ name: "attachments/a1" }]);
		expect(calls.linkForMemo.slice(before).map(c => [c.memo.id, c.apply])).toEqual([
			["a-attached", false],
			["a-attached", true]
		]);
		expect(await codeOf(call(broker, memosActions.createMemo, { memoId: "a-attached", ...memoBody("again") }, as(alice)))).toBe("ALREADY_EXISTS");
	});

	test("content longer than the MEMO_RELATED limit is refused", async () => {
		const long = "x".repeat(8193);
		expect(await codeOf(call(broker, memosActions.createMemo, memoBody(long), as(alice)))).toBe("INVALID_ARGUMENT");
		expect(await codeOf(call(broker, memosActions.createMemo, memoBody("x"), as(null)))).toBe("UNAUTHENTICATED");
	});

	test("a space ADMIN may delete a member's memo; a soft delete hides its attachments, a purge deletes them", async () => {
		spaceMembers.set("s1", [alice.id, carol.id]);
		await broadcast(broker, spacesEvents.memberAdded, { spaceId: "s1", userIds: [carol.id] });
		await create(carol, "c-in-space", "carol's", { visibility: "SPACE", space: "spaces/s1" });
		expect(await codeOf(call(broker, memosActions.deleteMemo, { memo: "c-in-space" }, as(bob)))).toBe("PERMISSION_DENIED");
		await call(broker, memosActions.deleteMemo, { memo: "c-in-space" }, as(alice));
		expect(calls.setMemosDeleted.at(-1)).toEqual(["c-in-space"]);
		expect(await codeOf(call(broker, memosActions.deleteMemo, { memo: "c-in-space" }, as(carol)))).toBe("NOT_FOUND");
		await call(broker, memosActions.deleteMemo, { memo: "c-in-space", force: "true" }, as(carol));
		expect(calls.deleteForMemos.at(-1)).toEqual(["c-in-space"]);
		// The purged id is free again.
		await create(carol, "c-in-space", "again");
	});
});

describe("lists (contract 6, 7.2)", () => {
	test("pages cover the caller's readable memos once each, newest first, with a token bound to the caller", async () => {
		for (let i = 0; i < 5; i++) await create(bob, `b-${i}`, `bob ${i}`, { visibility: i % 2 === 0 ? "PUBLIC" : "PRIVATE" });
		const seen: string[] = [];
		let pageToken = "";
		let firstToken = "";
		do {
			const page = await call(broker, memosActions.listMemos, { pageSize: "2", pageToken, filter: 'creator == "users/bob"' }, as(bob));
			expect((page.memos as unknown[]).length).toBeLessThanOrEqual(2);
			seen.push(...names(page.memos));
			pageToken = page.nextPageToken as string;
			if (firstToken === "") firstToken = pageToken;
		} while (pageToken !== "");
		expect(seen).toEqual(["memos/b-4", "memos/b-3", "memos/b-2", "memos/b-1", "memos/b-0"]);
		expect(await codeOf(call(broker, memosActions.listMemos, { pageSize: "2", pageToken: firstToken, filter: 'creator == "users/bob"' }, as(alice)))).toBe("INVALID_ARGUMENT");
		const anonymous = await call(broker, memosActions.listMemos, { filter: 'creator == "users/bob"' }, as(null));
		expect(names(anonymous.memos)).toEqual(["memos/b-4", "memos/b-2", "memos/b-0"]);
	});

	test("others see PUBLIC and PROTECTED memos, SPACE ones of their spaces, never another's PRIVATE", async () => {
		const listed = names((await call(broker, memosActions.listMemos, { filter: 'creator == "users/alice"', pageSize: "100" }, as(bob))).memos);
		expect(listed).toEqual(expect.arrayContaining(["memos/a-public", "memos/a-protected"]));
		expect(listed).not.toContain("memos/a-private");
		expect(listed).not.toContain("memos/a-space");
		const byCarol = names((await call(broker, memosActions.listMemos, { filter: 'creator == "users/alice"', pageSize: "100" }, as(carol))).memos);
		expect(byCarol).toContain("memos/a-space");
	});
});

describe("comments (contract 7.7)", () => {
	test("a comment is a memo with a COMMENT relation; the list holds what the caller may read", async () => {
		const comment = (user: Caller, id: string, visibility = "PUBLIC") =>
			call(broker, memosActions.createMemoComment, { memo: "a-public", commentId: id, comment: { content: id, visibility } }, as(user));
		clock += 1000;
		expect((await comment(bob, "c-bob")).parent).toBe("memos/a-public");
		clock += 1000;
		await comment(carol, "c-carol-private", "PRIVATE");
		const list = (user: Caller | null) => call(broker, memosActions.listMemoComments, { memo: "a-public" }, as(user)).then(page => names(page.memos));
		expect(await list(carol)).toEqual(expect.arrayContaining(["memos/c-bob", "memos/c-carol-private"]));
		expect(await list(bob)).toEqual(["memos/c-bob"]);
		expect(await list(null)).toEqual(["memos/c-bob"]);
		const relations = await call(broker, memosActions.listMemoRelations, { memo: "a-public" }, as(bob));
		expect(relations.relations).toEqual([{ memo: { name: "memos/c-bob", snippet: "c-bob" }, relatedMemo: { name: "memos/a-public", snippet: "public" }, type: "COMMENT" }]);
		// Not on a memo the caller cannot read; not on an archived one.
		expect(await codeOf(call(broker, memosActions.createMemoComment, { memo: "a-private", comment: { content: "x" } }, as(bob)))).toBe("PERMISSION_DENIED");
		await create(alice, "a-old", "old");
		await call(broker, memosActions.updateMemo, { memo: "a-old", updateMask: "state", patch: { state: "ARCHIVED" } }, as(alice));
		expect(await codeOf(call(broker, memosActions.createMemoComment, { memo: "a-old", comment: { content: "x" } }, as(alice)))).toBe("FAILED_PRECONDITION");
	});

	test("deleting the parent turns its comments into ordinary memos", async () => {
		await create(alice, "a-parent", "parent", { visibility: "PUBLIC" });
		await call(broker, memosActions.createMemoComment, { memo: "a-parent", commentId: "c-orphan", comment: { content: "orphan" } }, as(bob));
		await call(broker, memosActions.deleteMemo, { memo: "a-parent" }, as(alice));
		expect(await call(broker, memosActions.getMemo, { memo: "c-orphan" }, as(bob))).not.toHaveProperty("parent");
	});
});

describe("relations (contract 7.8)", () => {
	test("references are set, listed from both ends, and hidden where the other memo is unreadable", async () => {
		await create(bob, "b-ref", "refers", { visibility: "PUBLIC" });
		const set = (user: Caller, memo: string, related: string[]) =>
			call(broker, memosActions.setMemoRelations, { memo, relations: related.map(id => ({ relatedMemo: { name: `memos/${id}` } })) }, as(user));
		expect(await codeOf(set(bob, "b-ref", ["a-private"]))).toBe("NOT_FOUND");
		expect(await codeOf(set(bob, "b-ref", ["b-ref"]))).toBe("INVALID_ARGUMENT");
		expect(await codeOf(set(carol, "b-ref", ["a-public"]))).toBe("PERMISSION_DENIED");
		await set(bob, "b-ref", ["a-public", "a-protected"]);
		const outgoing = await call(broker, memosActions.listMemoRelations, { memo: "b-ref" }, as(bob));
		// Same creation time: ordered by the relation's key.
		expect((outgoing.relations as { relatedMemo: { name: string } }[]).map(r => r.relatedMemo.name)).toEqual(["memos/a-protected", "memos/a-public"]);
		// From the other end, and in the memo message; an anonymous reader does not see the PROTECTED end.
		const incoming = await call(broker, memosActions.listMemoRelations, { memo: "a-public" }, as(null));
		expect(incoming.relations).toContainEqual({ memo: { name: "memos/b-ref", snippet: "refers" }, relatedMemo: { name: "memos/a-public", snippet: "public" }, type: "REFERENCE" });
		const anonymous = await call(broker, memosActions.getMemo, { memo: "b-ref" }, as(null));
		expect((anonymous.relations as { relatedMemo: { name: string } }[]).map(r => r.relatedMemo.name)).toEqual(["memos/a-public"]);
		// Replacing the set keeps what stays and drops the rest.
		await set(bob, "b-ref", ["a-protected"]);
		expect(((await call(broker, memosActions.listMemoRelations, { memo: "b-ref" }, as(bob))).relations as unknown[]).length).toBe(1);
	});

	test("relation pages are bounded by pageSize and continue with the token", async () => {
		await create(carol, "c-hub", "hub", { visibility: "PUBLIC" });
		const targets = ["a-public", "a-protected", "b-0", "b-2", "b-4"];
		await call(broker, memosActions.setMemoRelations, { memo: "c-hub", relations: targets.map(id => ({ relatedMemo: { name: `memos/${id}` } })) }, as(carol));
		const seen: string[] = [];
		let pageToken = "";
		do {
			const page = await call(broker, memosActions.listMemoRelations, { memo: "c-hub", pageSize: 2, pageToken }, as(carol));
			expect((page.relations as unknown[]).length).toBeLessThanOrEqual(2);
			seen.push(...(page.relations as { relatedMemo: { name: string } }[]).map(r => r.relatedMemo.name));
			pageToken = page.nextPageToken as string;
		} while (pageToken !== "");
		expect(seen.sort()).toEqual(targets.map(id => `memos/${id}`).sort());
	});
});

describe("reactions (contract 7.10)", () => {
	test("one reaction per user and memo, replaced in place; deleted by its creator or an admin", async () => {
		const react = (user: Caller, type: string) => call(broker, memosActions.upsertMemoReaction, { memo: "a-public", reaction: { reactionType: type } }, as(user));
		const first = await react(bob, "👍");
		clock += 1000;
		const second = await react(bob, "🎉");
		expect(second).toMatchObject({ name: first.name, creator: "users/bob", reactionType: "🎉", createTime: first.createTime });
		// Later, so listed after bob's (equal times are ordered by the random id).
		clock += 1000;
		await react(carol, "👀");
		const listed = await call(broker, memosActions.listMemoReactions, { memo: "a-public" }, as(null));
		expect((listed.reactions as { creator: string; reactionType: string }[]).map(r => [r.creator, r.reactionType])).toEqual([
			["users/bob", "🎉"],
			["users/carol", "👀"]
		]);
		expect(await codeOf(react(bob, ""))).toBe("INVALID_ARGUMENT");
		expect(await codeOf(call(broker, memosActions.upsertMemoReaction, { memo: "a-public", reaction: { reactionType: "x" } }, as(null)))).toBe("UNAUTHENTICATED");
		expect(await codeOf(call(broker, memosActions.upsertMemoReaction, { memo: "a-private", reaction: { reactionType: "x" } }, as(bob)))).toBe("PERMISSION_DENIED");
		const reactionId = String(first.name).split("/").at(-1);
		expect(await codeOf(call(broker, memosActions.deleteMemoReaction, { memo: "a-public", reaction: reactionId }, as(carol)))).toBe("PERMISSION_DENIED");
		expect(await codeOf(call(broker, memosActions.deleteMemoReaction, { memo: "a-protected", reaction: reactionId }, as(bob)))).toBe("NOT_FOUND");
		await call(broker, memosActions.deleteMemoReaction, { memo: "a-public", reaction: reactionId }, as(admin));
		expect(names((await call(broker, memosActions.getMemo, { memo: "a-public" }, as(bob))).reactions)).toHaveLength(1);
	});
});

describe("share links (contract 7.11)", () => {
	test("the creator shares; anyone with a live link reads the memo without parent and relations", async () => {
		expect(await codeOf(call(broker, memosActions.createMemoShare, { memo: "b-ref" }, as(alice)))).toBe("PERMISSION_DENIED");
		expect(await codeOf(call(broker, memosActions.createMemoShare, { memo: "b-ref" }, as(null)))).toBe("UNAUTHENTICATED");
		const share = await call(broker, memosActions.createMemoShare, { memo: "b-ref", memoShare: { expireTime: new Date(clock + 60_000).toISOString() } }, as(bob));
		const token = String(share.name).split("/").at(-1) ?? "";
		const shared = await call(broker, memosActions.getSharedMemo, { shareToken: token }, as(null));
		expect(shared).toMatchObject({ name: "memos/b-ref", relations: [] });
		expect(await call(broker, memosActions.resolveShare, { token }, as(null))).toEqual({ memoId: "b-ref" });
		expect(names((await call(broker, memosActions.listMemoShares, { memo: "b-ref" }, as(admin))).memoShares)).toEqual([share.name]);
		// Past its expiry the link opens nothing.
		expect(await codeOf(call(broker, memosActions.getSharedMemo, { shareToken: token }, as(null, clock + 60_001)))).toBe("NOT_FOUND");
		expect(await call(broker, memosActions.resolveShare, { token }, as(null, clock + 60_001))).toBeNull();
		expect(await codeOf(call(broker, memosActions.createMemoShare, { memo: "b-ref", memoShare: { expireTime: new Date(clock - 1).toISOString() } }, as(bob)))).toBe("INVALID_ARGUMENT");
	});

	test("a revoked link is gone at once; a comment's shared view leaves the parent out", async () => {
		const share = await call(broker, memosActions.createMemoShare, { memo: "c-bob" }, as(bob));
		const token = String(share.name).split("/").at(-1) ?? "";
		expect(await call(broker, memosActions.getSharedMemo, { shareToken: token }, as(null))).not.toHaveProperty("parent");
		expect(await codeOf(call(broker, memosActions.deleteMemoShare, { memo: "b-ref", share: token }, as(bob)))).toBe("NOT_FOUND");
		await call(broker, memosActions.deleteMemoShare, { memo: "c-bob", share: token }, as(bob));
		expect(await codeOf(call(broker, memosActions.getSharedMemo, { shareToken: token }, as(null)))).toBe("NOT_FOUND");
	});
});

describe("for other services", () => {
	test("a deleted space's memos leave it, SPACE ones becoming PRIVATE (contract 9)", async () => {
		spaceMembers.set("s9", [alice.id]);
		await broadcast(broker, spacesEvents.memberAdded, { spaceId: "s9", userIds: [alice.id] });
		await create(alice, "a-s9-space", "in s9", { visibility: "SPACE", space: "spaces/s9" });
		await create(alice, "a-s9-public", "in s9", { visibility: "PUBLIC", space: "spaces/s9" });
		expect(await call(broker, memosActions.spaceMemoCount, { spaceId: "s9" })).toBe(2);
		await call(broker, memosActions.detachSpace, { spaceId: "s9" });
		expect(calls.leaveSpace).toContain("s9");
		expect(await call(broker, memosActions.spaceMemoCount, { spaceId: "s9" })).toBe(0);
		expect(await call(broker, memosActions.getMemo, { memo: "a-s9-space" }, as(alice))).toMatchObject({ visibility: "PRIVATE", space: null });
		expect(await call(broker, memosActions.getMemo, { memo: "a-s9-public" }, as(alice))).toMatchObject({ visibility: "PUBLIC", space: null });
	});

	test("a deleted user's memos, reactions and links go; others' comments on them stay as memos (contract 2.4)", async () => {
		await create(carol, "c-gone", "carol's last", { visibility: "PUBLIC" });
		await call(broker, memosActions.createMemoComment, { memo: "c-gone", commentId: "b-on-carol", comment: { content: "reply", visibility: "PUBLIC" } }, as(bob));
		await call(broker, memosActions.upsertMemoReaction, { memo: "b-ref", reaction: { reactionType: "carol" } }, as(carol));
		const { memoCount } = await call(broker, memosActions.stats);
		await call(broker, memosActions.deleteUserData, { userId: carol.id });
		const carolMemos = (await call(broker, memosActions.listMemos, { filter: 'creator == "users/carol"' }, as(admin))).memos;
		expect(carolMemos).toEqual([]);
		expect((await call(broker, memosActions.stats)).memoCount).toBeLessThan(memoCount);
		expect(await call(broker, memosActions.getMemo, { memo: "b-on-carol" }, as(bob))).not.toHaveProperty("parent");
		const reactions = await call(broker, memosActions.listMemoReactions, { memo: "b-ref" }, as(bob));
		expect(reactions.reactions).toEqual([]);
		// Idempotent.
		await call(broker, memosActions.deleteUserData, { userId: carol.id });
	});

	// SetMemoAttachments' caller (signed in) is the change's actor.
	test("touch moves a live memo's update time, not a deleted one's", async () => {
		const time = clock + 5000;
		await call(broker, memosActions.touch, { memoId: "a-public", time }, as(alice));
		expect((await call(broker, memosActions.getMemo, { memo: "a-public" }, as(alice))).updateTime).toBe(new Date(time).toISOString());
		await call(broker, memosActions.touch, { memoId: "a-parent", time }, as(alice));
		const deleted = await call(broker, memosActions.listMemos, { showDeleted: "true", filter: 'creator == "users/alice"', pageSize: "100" }, as(alice));
		const parent = (deleted.memos as { name: string; updateTime: string }[]).find(memo => memo.name === "memos/a-parent");
		expect(parent?.updateTime).not.toBe(new Date(time).toISOString());
	});

	test("touch succeeds when the memo cannot be rendered for its webhooks: the change waits in the outbox for the relay pass", async () => {
		const time = clock + 6000;
		forMemosFails = true;
		try {
			await call(broker, memosActions.touch, { memoId: "a-protected", time }, as(alice));
		} finally {
			forMemosFails = false;
		}
		const doc = await memosStore(documents).memos.findOne({ _id: "a-protected" });
		expect({ updateTime: doc?.updateTime, pending: doc?.outboxPending, events: doc?.outbox?.map(entry => entry.event) }).toEqual({ updateTime: time, pending: true, events: ["memo.updated"] });
	});
});
