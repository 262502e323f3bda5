import { ServiceBroker } from "moleculer";
import { authActions, type UserRef } from "../../services/auth/auth.contract.js";
import { memosActions } from "../../services/memos/memos.contract.js";
import { spacesActions, spacesEvents, type SpaceMemberEvent } from "../../services/spaces/spaces.contract.js";
import SpacesService from "../../services/spaces/spaces.service.js";
import type { Caller } from "../../shared/caller.js";
import { call, onEvent } from "../../shared/contract.js";
import { loadConfig } from "../../shared/runtime/config.js";
import { attachResources } from "../../shared/runtime/resources.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { fake, fakeService } from "../support/fake-service.js";
import { rejectionOf } from "../support/service-errors.js";

/**
 * The spaces service on a bare broker: its rules through its actions, with typed fakes of
 * what it calls (auth's user look-up, memos' placed-memo count and detach) and a listener of
 * its membership events; the document store in memory.
 */

const user = (id: string, username: string, extra: Partial<UserRef> = {}): UserRef => ({ id, username, role: "USER", state: "NORMAL", ...extra });
const users = [
	user("u-alice", "alice"),
	user("u-bob", "bob"),
	user("u-carol", "carol"),
	user("u-dave", "dave", { state: "ARCHIVED" }),
	user("u-root", "root", { role: "ADMIN" })
];
const caller = (username: string): Caller => {
	const found = users.find(u => u.username === username) as UserRef;
	return { id: found.id, username: found.username, role: found.role } as Caller;
};
const [alice, bob, carol, root] = ["alice", "bob", "carol", "root"].map(caller) as [Caller, Caller, Caller, Caller];

/** Memos the fake memos service holds per space, and each detach it was asked for. */
const placedMemos = new Map<string, number>();
const detached: string[] = [];
/** Membership events as broadcast, in order. */
const events: { name: string; payload: SpaceMemberEvent }[] = [];

let broker: ServiceBroker;
let documents: SqliteDocumentStore;

const as = (who: Caller | null) => ({ meta: { user: who, requestTime: Date.now() } });
const memberNames = async (space: string, who: Caller) =>
	((await call(broker, spacesActions.listSpaceMembers, { space }, as(who))).members as { name: string; role: string }[]).map(m => `${m.name} ${m.role}`);
const eventsSince = (start: number) => events.slice(start).map(e => `${e.name} ${e.payload.spaceId} ${e.payload.userIds.join(",")}`);

beforeAll(async () => {
	documents = new SqliteDocumentStore({ dir: null });
	broker = new ServiceBroker({ logger: false });
	attachResources(broker, { config: loadConfig({ LOG_LEVEL: "silent" }), documents });
	broker.createService(SpacesService);
	broker.createService(
		fakeService("auth", [
			fake(authActions.lookupUsers, ctx => users.filter(u => ctx.params.ids?.includes(u.id) || ctx.params.usernames?.includes(u.username)))
		])
	);
	broker.createService(
		fakeService("memos", [
			fake(memosActions.spaceMemoCount, ctx => placedMemos.get(ctx.params.spaceId) ?? 0),
			fake(memosActions.detachSpace, ctx => {
				detached.push(ctx.params.spaceId);
				placedMemos.delete(ctx.params.spaceId);
			})
		])
	);
	broker.createService({
		name: "listener",
		events: onEvent(spacesEvents.memberChanged, ctx => void events.push({ name: ctx.eventName ?? "", payload: ctx.params }))
	});
	await broker.start();
});

afterAll(async () => {
	await broker.stop();
	await documents.close();
});

/** Broadcasts reach the local listener asynchronously; waits until `count` events arrived. */
async function eventsArrived(count: number): Promise<void> {
	while (events.length < count) await new Promise(resolve => setImmediate(resolve));
}

test("CreateSpace makes the caller the first ADMIN; ids are unique; anonymous callers are refused (contract 9)", async () => {
	const before = events.length;
	const created = await call(broker, spacesActions.createSpace, { spaceId: "team", space: { displayName: " Team ", description: "ours" } }, as(alice));
	expect(created).toMatchObject({ name: "spaces/team", displayName: "Team", description: "ours", creator: "users/alice", memberCount: 1, membership: { role: "ADMIN" } });
	await eventsArrived(before + 1);
	expect(eventsSince(before)).toEqual(["space.member.added team u-alice"]);
	expect((await rejectionOf(call(broker, spacesActions.createSpace, { spaceId: "team", space: { displayName: "Again" } }, as(bob)))).type).toBe("ALREADY_EXISTS");
	expect((await rejectionOf(call(broker, spacesActions.createSpace, { spaceId: "x", space: { displayName: "" } }, as(bob)))).type).toBe("INVALID_ARGUMENT");
	expect((await rejectionOf(call(broker, spacesActions.createSpace, { spaceId: "x", space: { displayName: "X" } }, as(null)))).type).toBe("UNAUTHENTICATED");
});

test("a space is hidden from non-members, managed by its ADMINs and by instance ADMINs (contract 1.10, 9)", async () => {
	expect((await rejectionOf(call(broker, spacesActions.getSpace, { space: "team" }, as(bob)))).type).toBe("NOT_FOUND");
	expect((await rejectionOf(call(broker, spacesActions.getSpace, { space: "nowhere" }, as(root)))).type).toBe("NOT_FOUND");
	const seenByRoot = await call(broker, spacesActions.getSpace, { space: "team" }, as(root));
	expect(seenByRoot).toMatchObject({ name: "spaces/team", creator: "users/alice" });
	expect(seenByRoot).not.toHaveProperty("membership");
	await call(broker, spacesActions.addSpaceMember, { space: "team", member: { user: "users/bob" } }, as(alice));
	const patch = { space: "team", updateMask: "description", patch: { description: "renamed" } };
	expect((await rejectionOf(call(broker, spacesActions.updateSpace, patch, as(bob)))).type).toBe("PERMISSION_DENIED");
	expect(await call(broker, spacesActions.updateSpace, patch, as(root))).toMatchObject({ description: "renamed", memberCount: 2 });
});

test("AddSpaceMember: unknown users NOT_FOUND, archived FAILED_PRECONDITION, twice ALREADY_EXISTS (contract 9)", async () => {
	const add = (username: string) => call(broker, spacesActions.addSpaceMember, { space: "team", member: { user: `users/${username}`, role: "MEMBER" } }, as(alice));
	expect((await rejectionOf(add("nobody"))).type).toBe("NOT_FOUND");
	expect((await rejectionOf(add("dave"))).type).toBe("FAILED_PRECONDITION");
	expect((await rejectionOf(add("bob"))).type).toBe("ALREADY_EXISTS");
	expect(await memberNames("team", alice)).toEqual(["spaces/team/members/alice ADMIN", "spaces/team/members/bob MEMBER"]);
});

test("a space keeps at least one ADMIN; a member may leave (contract 9)", async () => {
	const demote = (member: string) => call(broker, spacesActions.updateSpaceMember, { space: "team", member, updateMask: "role", patch: { role: "MEMBER" } }, as(alice));
	expect((await rejectionOf(demote("alice"))).type).toBe("FAILED_PRECONDITION");
	expect((await rejectionOf(call(broker, spacesActions.removeSpaceMember, { space: "team", member: "alice" }, as(alice)))).type).toBe("FAILED_PRECONDITION");
	expect((await rejectionOf(call(broker, spacesActions.removeSpaceMember, { space: "team", member: "alice" }, as(bob)))).type).toBe("PERMISSION_DENIED");
	const before = events.length;
	await call(broker, spacesActions.updateSpaceMember, { space: "team", member: "bob", updateMask: "role", patch: { role: "ADMIN" } }, as(alice));
	expect(await demote("alice")).toMatchObject({ name: "spaces/team/members/alice", role: "MEMBER" });
	await call(broker, spacesActions.removeSpaceMember, { space: "team", member: "alice" }, as(alice));
	await eventsArrived(before + 3);
	expect(eventsSince(before)).toEqual(["space.member.updated team u-bob", "space.member.updated team u-alice", "space.member.removed team u-alice"]);
	expect(await memberNames("team", bob)).toEqual(["spaces/team/members/bob ADMIN"]);
});

test("DeleteSpace needs force while memos are placed in it; force detaches them first (contract 9)", async () => {
	await call(broker, spacesActions.createSpace, { spaceId: "busy", space: { displayName: "Busy" } }, as(carol));
	placedMemos.set("busy", 2);
	const refused = await rejectionOf(call(broker, spacesActions.deleteSpace, { space: "busy" }, as(carol)));
	expect(refused.type).toBe("FAILED_PRECONDITION");
	expect(refused.message).toContain("2 memos");
	await call(broker, spacesActions.deleteSpace, { space: "busy", force: true }, as(carol));
	expect(detached.filter(id => id === "busy")).toHaveLength(2);
	expect((await rejectionOf(call(broker, spacesActions.getSpace, { space: "busy" }, as(root)))).type).toBe("NOT_FOUND");
	expect(await call(broker, spacesActions.membershipsOf, { userId: carol.id })).toEqual([]);
});

test("ListSpaces pages through the caller's spaces, newest first (contract 6, 9)", async () => {
	for (const id of ["p1", "p2", "p3"]) await call(broker, spacesActions.createSpace, { spaceId: id, space: { displayName: id } }, as(carol));
	const first = await call(broker, spacesActions.listSpaces, { pageSize: 2 }, as(carol));
	const second = await call(broker, spacesActions.listSpaces, { pageSize: 2, pageToken: first.nextPageToken }, as(carol));
	const names = (page: Record<string, unknown>) => (page.spaces as { name: string }[]).map(s => s.name);
	expect([...names(first), ...names(second)]).toEqual(["spaces/p3", "spaces/p2", "spaces/p1"]);
	expect(second.nextPageToken).toBe("");
	expect((await rejectionOf(call(broker, spacesActions.listSpaces, { pageToken: first.nextPageToken }, as(bob)))).type).toBe("INVALID_ARGUMENT");
});

test("for other services: memberships, roles and the space counter", async () => {
	expect(await call(broker, spacesActions.membershipsOf, { userId: bob.id })).toEqual([{ spaceId: "team", role: "ADMIN" }]);
	expect(await call(broker, spacesActions.spaceMembers, { spaceId: "team", userIds: [alice.id, bob.id] })).toEqual({ exists: true, roles: { [bob.id]: "ADMIN" } });
	expect(await call(broker, spacesActions.spaceMembers, { spaceId: "gone", userIds: [bob.id] })).toEqual({ exists: false, roles: {} });
	const members = await call(broker, spacesActions.membersOfSpaces, { spaceIds: ["team", "p1", "p2", "gone"], userIds: [alice.id, bob.id, carol.id] });
	expect(members).toEqual({ team: [bob.id], p1: [carol.id], p2: [carol.id] });
	expect(await call(broker, spacesActions.membersOfSpaces, { spaceIds: ["team", "p1"], userIds: [alice.id] })).toEqual({});
	expect(await call(broker, spacesActions.stats)).toEqual({ spaceCount: 4 });
});

test("DeleteUser's clean-up: the longest-standing member succeeds the last ADMIN; a space left empty is erased (contract 2.4)", async () => {
	await call(broker, spacesActions.addSpaceMember, { space: "p1", member: { user: "users/alice" } }, as(carol));
	await call(broker, spacesActions.addSpaceMember, { space: "p1", member: { user: "users/bob" } }, as(carol));
	await call(broker, spacesActions.deleteUserData, { userId: carol.id });
	expect(await memberNames("p1", alice)).toEqual(["spaces/p1/members/alice ADMIN", "spaces/p1/members/bob MEMBER"]);
	expect(detached).toEqual(expect.arrayContaining(["p2", "p3"]));
	expect(await call(broker, spacesActions.stats)).toEqual({ spaceCount: 2 });
	await call(broker, spacesActions.deleteUserData, { userId: carol.id });
	expect(await call(broker, spacesActions.stats)).toEqual({ spaceCount: 2 });
});
