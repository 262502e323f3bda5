import { signUp, type Session } from "../support/users.js";
import type { Answer } from "../support/memos-client.js";
import { usePopulatedApp } from "../support/populated-app.js";

/** SpaceService over HTTP (contract 3.4, 4.7, 9). */

const { app, api, admin, users: [alice, bob, carol, dave] } = usePopulatedApp(4);

beforeAll(async () => {
	// An archived user, for AddSpaceMember.
	await signUp(app().baseUrl, "archived", undefined, { accessToken: admin().accessToken });
	const res = await api.request("PATCH", "/users/archived", { as: admin(), query: { updateMask: "state" }, body: { state: "ARCHIVED" } });
	if (res.status !== 200) throw new Error(`archiving answered ${res.status}: ${res.text}`);
});

type Space = Record<string, unknown> & { name: string };

const UUID_V4 = /^spaces\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function expectError(res: Answer<unknown>, status: number, code: number): void {
	expect({ status: res.status, code: (res.body as { code?: number } | undefined)?.code }).toEqual({ status, code });
	expect(res.body).toMatchObject({ details: [] });
}

let counter = 0;
function freshId(): string {
	counter += 1;
	return `team-${counter}`;
}

async function createSpace(as: Session, body: Record<string, unknown> = { displayName: "Team" }, spaceId = freshId()): Promise<Space> {
	const res = await api.request<Space>("POST", "/spaces", { as, body, query: spaceId === "" ? {} : { spaceId } });
	if (res.status !== 200) throw new Error(`CreateSpace answered ${res.status}: ${res.text}`);
	return res.body;
}

async function addMember(as: Session, space: Space, username: string, role?: string): Promise<Answer> {
	return api.request("POST", `/${space.name}/members`, { as, body: role === undefined ? { user: `users/${username}` } : { user: `users/${username}`, role } });
}

async function ok<T>(res: Promise<Answer<T>>): Promise<T> {
	const answer = await res;
	if (answer.status !== 200) throw new Error(`answered ${answer.status}: ${answer.text}`);
	return answer.body;
}

const member = (space: Space, username: string) => `/${space.name}/members/${username}`;

describe("CreateSpace", () => {
	test("the caller becomes the first ADMIN; the answer is a Space with the caller's membership", async () => {
		const space = await createSpace(alice(), { displayName: "  Design team  ", description: "We draw." }, "design");
		expect(space).toEqual({
			name: "spaces/design",
			displayName: "Design team",
			description: "We draw.",
			creator: "users/user1",
			createTime: expect.stringMatching(TIMESTAMP),
			updateTime: space.createTime,
			memberCount: 1,
			membership: { role: "ADMIN", joinTime: expect.stringMatching(TIMESTAMP) }
		});
		expect((await api.request("GET", "/spaces/design", { as: alice() })).body).toEqual(space);
	});

	test("an empty spaceId gets a canonical UUID v4", async () => {
		const space = await createSpace(alice(), { displayName: "Generated" }, "");
		expect(space.name).toMatch(UUID_V4);
		const blank = await api.request<Space>("POST", "/spaces", { as: alice(), body: { displayName: "Blank" }, query: { spaceId: "  " } });
		expect(blank.body.name).toMatch(UUID_V4);
	});

	test("a taken id is ALREADY_EXISTS, also for another user", async () => {
		await createSpace(alice(), { displayName: "Once" }, "taken");
		expectError(await api.request("POST", "/spaces", { as: bob(), body: { displayName: "Twice" }, query: { spaceId: "taken" } }), 409, 6);
		expectError(await api.request("POST", "/spaces", { as: alice(), body: { displayName: "Twice" }, query: { spaceId: "taken" } }), 409, 6);
	});

	test.each(["-lead", "trail-", "has space", "under_score", "a".repeat(37), "dot.ted", "slash/ed", "ünï"])("spaceId %j violates the regex: INVALID_ARGUMENT", async spaceId => {
		expectError(await api.request("POST", "/spaces", { as: alice(), body: { displayName: "X" }, query: { spaceId } }), 400, 3);
	});

	test.each([
		["missing", {}],
		["empty", { displayName: "" }],
		["blank", { displayName: "   " }],
		["over 100 characters", { displayName: "x".repeat(101) }],
		["not a string", { displayName: 7 }],
		["description over 2000 characters", { displayName: "ok", description: "d".repeat(2001) }],
		["description not a string", { displayName: "ok", description: ["d"] }]
	])("display name or description %s: INVALID_ARGUMENT", async (_what, body) => {
		expectError(await api.request("POST", "/spaces", { as: alice(), body, query: { spaceId: freshId() } }), 400, 3);
	});

	test("limits count characters: 100-character names and 2000-character descriptions are accepted", async () => {
		const space = await createSpace(alice(), { displayName: "é".repeat(99) + "👍", description: "d".repeat(2000) });
		expect(space.displayName).toBe("é".repeat(99) + "👍");
	});

	test("anonymous: UNAUTHENTICATED", async () => {
		expectError(await api.request("POST", "/spaces", { body: { displayName: "X" } }), 401, 16);
		expectError(await api.request("GET", "/spaces"), 401, 16);
	});
});

describe("ListSpaces", () => {
	test("only the caller's spaces, newest first, each with the caller's membership, paginated", async () => {
		const names: string[] = [];
		for (let i = 0; i < 5; i++) names.push((await createSpace(carol(), { displayName: `Carol ${i}` })).name);
		const other = await createSpace(dave(), { displayName: "Dave's" });
		await ok(addMember(dave(), other, "user3"));
		const seen: string[] = [];
		const roles: unknown[] = [];
		let pageToken = "";
		for (;;) {
			const page = await ok(api.request<{ spaces: Space[]; nextPageToken: string }>("GET", "/spaces", { as: carol(), query: pageToken === "" ? { pageSize: "2" } : { pageSize: "2", pageToken } }));
			expect(page.spaces.length).toBeLessThanOrEqual(2);
			seen.push(...page.spaces.map(s => s.name));
			roles.push(...page.spaces.map(s => s.membership));
			pageToken = page.nextPageToken;
			if (pageToken === "") break;
		}
		expect(seen).toEqual([other.name, ...[...names].reverse()]);
		expect(roles.map(r => (r as { role: string }).role)).toEqual(["MEMBER", "ADMIN", "ADMIN", "ADMIN", "ADMIN", "ADMIN"]);
		const admins = await ok(api.request<{ spaces: Space[] }>("GET", "/spaces", { as: admin() }));
		expect(admins.spaces.map(s => s.name)).not.toContain(other.name);
	});

	test("a page token of another caller or a forged one is INVALID_ARGUMENT", async () => {
		await createSpace(bob(), { displayName: "b1" });
		await createSpace(bob(), { displayName: "b2" });
		const page = await ok(api.request<{ nextPageToken: string }>("GET", "/spaces", { as: bob(), query: { pageSize: "1" } }));
		expect(page.nextPageToken).not.toBe("");
		expectError(await api.request("GET", "/spaces", { as: alice(), query: { pageToken: page.nextPageToken } }), 400, 3);
		expectError(await api.request("GET", "/spaces", { as: bob(), query: { pageToken: "not-a-token" } }), 400, 3);
		expectError(await api.request("GET", "/spaces", { as: bob(), query: { pageSize: "x" } }), 400, 3);
	});
});

describe("space routes hide spaces from non-members (contract 1.10, 9)", () => {
	let space: Space;
	beforeAll(async () => {
		space = await createSpace(alice(), { displayName: "Hidden" });
		await ok(addMember(alice(), space, "user2"));
	});

	const routes: [string, string, (s: Space) => string, Record<string, unknown> | undefined, Record<string, string>][] = [
		["GetSpace", "GET", s => `/${s.name}`, undefined, {}],
		["UpdateSpace", "PATCH", s => `/${s.name}`, { displayName: "x" }, { updateMask: "display_name" }],
		["DeleteSpace", "DELETE", s => `/${s.name}`, undefined, { force: "true" }],
		["ListSpaceMembers", "GET", s => `/${s.name}/members`, undefined, {}],
		["AddSpaceMember", "POST", s => `/${s.name}/members`, { user: "users/user3" }, {}],
		["UpdateSpaceMember", "PATCH", s => `/${s.name}/members/user2`, { role: "ADMIN" }, { updateMask: "role" }],
		["RemoveSpaceMember", "DELETE", s => `/${s.name}/members/user2`, undefined, {}]
	];

	test.each(routes)("%s: a non-member gets NOT_FOUND, like for a space that does not exist", async (_op, method, path, body, query) => {
		expectError(await api.request(method, path(space), { as: carol(), body, query }), 404, 5);
		expectError(await api.request(method, path({ name: "spaces/nowhere" }), { as: carol(), body, query }), 404, 5);
		expectError(await api.request(method, path({ name: "spaces/nowhere" }), { as: admin(), body, query }), 404, 5);
	});

	test.each(routes.filter(([op]) => !["GetSpace", "ListSpaceMembers", "RemoveSpaceMember"].includes(op)))(
		"%s: a MEMBER lacking the space-ADMIN right gets PERMISSION_DENIED",
		async (_op, method, path, body, query) => {
			expectError(await api.request(method, path(space), { as: bob(), body, query }), 403, 7);
		}
	);

	test("anonymous callers: UNAUTHENTICATED", async () => {
		for (const [, method, path, body, query] of routes) expectError(await api.request(method, path(space), { body, query }), 401, 16);
	});
});

describe("GetSpace, UpdateSpace", () => {
	test("members read the space with their own membership; instance ADMINs read it without one", async () => {
		const space = await createSpace(alice(), { displayName: "Read" });
		await ok(addMember(alice(), space, "user2"));
		const asBob = await ok(api.request<Space>("GET", `/${space.name}`, { as: bob() }));
		expect(asBob).toMatchObject({ memberCount: 2, membership: { role: "MEMBER" } });
		const asAdmin = await ok(api.request<Space>("GET", `/${space.name}`, { as: admin() }));
		expect(asAdmin.memberCount).toBe(2);
		expect(asAdmin).not.toHaveProperty("membership");
	});

	test("mask display_name and description; fields outside the mask and output fields are ignored", async () => {
		const space = await createSpace(alice(), { displayName: "Before", description: "old" });
		const updated = await ok(
			api.request<Space>("PATCH", `/${space.name}`, { as: alice(), query: { updateMask: "displayName,description" }, body: { displayName: " After ", description: "new", memberCount: 9, name: "spaces/x" } })
		);
		expect(updated).toMatchObject({ name: space.name, displayName: "After", description: "new", memberCount: 1, createTime: space.createTime });
		const only = await ok(api.request<Space>("PATCH", `/${space.name}`, { as: alice(), query: { updateMask: "description" }, body: { displayName: "Ignored", description: "" } }));
		expect(only).toMatchObject({ displayName: "After", description: "" });
	});

	test("instance ADMINs may update any space", async () => {
		const space = await createSpace(alice(), { displayName: "Managed" });
		expect(await ok(api.request<Space>("PATCH", `/${space.name}`, { as: admin(), query: { updateMask: "display_name" }, body: { displayName: "By admin" } }))).toMatchObject({ displayName: "By admin" });
	});

	test.each([
		["no mask", {}, { displayName: "x" }],
		["an unknown path", { updateMask: "member_count" }, { displayName: "x" }],
		["an empty display name", { updateMask: "display_name" }, { displayName: " " }],
		["a display name over 100 characters", { updateMask: "display_name" }, { displayName: "y".repeat(101) }],
		["a description over 2000 characters", { updateMask: "description" }, { description: "y".repeat(2001) }]
	])("%s: INVALID_ARGUMENT", async (_what, query, body) => {
		const space = await createSpace(alice(), { displayName: "Bad" });
		expectError(await api.request("PATCH", `/${space.name}`, { as: alice(), query, body }), 400, 3);
	});
});

describe("members and roles", () => {
	test("AddSpaceMember adds as MEMBER by default, or with a role; the list is in join order", async () => {
		const space = await createSpace(alice(), { displayName: "Members" });
		expect(await ok(addMember(alice(), space, "user2"))).toEqual({
			name: `${space.name}/members/user2`,
			user: "users/user2",
			role: "MEMBER",
			joinTime: expect.stringMatching(TIMESTAMP)
		});
		expect(await ok(addMember(alice(), space, "user3", "ADMIN"))).toMatchObject({ role: "ADMIN" });
		expect(await ok(addMember(alice(), space, "user4", "ROLE_UNSPECIFIED"))).toMatchObject({ role: "MEMBER" });
		const list = await ok(api.request<{ members: { user: string; role: string }[]; nextPageToken: string }>("GET", `/${space.name}/members`, { as: bob() }));
		expect(list.members.map(m => [m.user, m.role])).toEqual([
			["users/user1", "ADMIN"],
			["users/user2", "MEMBER"],
			["users/user3", "ADMIN"],
			["users/user4", "MEMBER"]
		]);
		expect(list.nextPageToken).toBe("");
		const first = await ok(api.request<{ members: { user: string }[]; nextPageToken: string }>("GET", `/${space.name}/members`, { as: bob(), query: { pageSize: "3" } }));
		expect(first.members).toHaveLength(3);
		const second = await ok(api.request<{ members: { user: string }[]; nextPageToken: string }>("GET", `/${space.name}/members`, { as: bob(), query: { pageSize: "3", pageToken: first.nextPageToken } }));
		expect(second.members.map(m => m.user)).toEqual(["users/user4"]);
		expect(second.nextPageToken).toBe("");
		expect((await ok(api.request<Space>("GET", `/${space.name}`, { as: alice() }))).memberCount).toBe(4);
	});

	test("bad input: unknown user NOT_FOUND, archived FAILED_PRECONDITION, already a member ALREADY_EXISTS, malformed names and roles INVALID_ARGUMENT", async () => {
		const space = await createSpace(alice(), { displayName: "Checks" });
		await ok(addMember(alice(), space, "user2"));
		expectError(await addMember(alice(), space, "nobody"), 404, 5);
		expectError(await addMember(alice(), space, "archived"), 400, 9);
		expectError(await addMember(alice(), space, "user2"), 409, 6);
		expectError(await addMember(alice(), space, "user1"), 409, 6);
		expectError(await api.request("POST", `/${space.name}/members`, { as: alice(), body: {} }), 400, 3);
		expectError(await api.request("POST", `/${space.name}/members`, { as: alice(), body: { user: "user3" } }), 400, 3);
		expectError(await api.request("POST", `/${space.name}/members`, { as: alice(), body: { user: "memos/user3" } }), 400, 3);
		expectError(await addMember(alice(), space, "user3", "OWNER"), 400, 3);
		expectError(await addMember(alice(), space, "user3", "7"), 400, 3);
		expectError(await api.request("PATCH", member(space, "user2"), { as: alice(), query: { updateMask: "role" }, body: { role: "OWNER" } }), 400, 3);
		expectError(await api.request("PATCH", member(space, "user2"), { as: alice(), query: { updateMask: "role" }, body: { role: "ROLE_UNSPECIFIED" } }), 400, 3);
		expectError(await api.request("PATCH", member(space, "user2"), { as: alice(), query: { updateMask: "user" }, body: { role: "ADMIN" } }), 400, 3);
		expectError(await api.request("PATCH", member(space, "user2"), { as: alice(), body: { role: "ADMIN" } }), 400, 3);
		expectError(await api.request("PATCH", member(space, "user3"), { as: alice(), query: { updateMask: "role" }, body: { role: "ADMIN" } }), 404, 5);
		expectError(await api.request("DELETE", member(space, "user3"), { as: alice() }), 404, 5);
		expectError(await api.request("DELETE", member(space, "nobody"), { as: alice() }), 404, 5);
	});

	test("UpdateSpaceMember changes roles; the last ADMIN can neither be demoted, removed, nor leave", async () => {
		const space = await createSpace(alice(), { displayName: "Roles" });
		await ok(addMember(alice(), space, "user2"));
		expectError(await api.request("PATCH", member(space, "user1"), { as: alice(), query: { updateMask: "role" }, body: { role: "MEMBER" } }), 400, 9);
		expectError(await api.request("DELETE", member(space, "user1"), { as: alice() }), 400, 9);
		expectError(await api.request("DELETE", member(space, "user1"), { as: admin() }), 400, 9);
		expect(await ok(api.request("PATCH", member(space, "user2"), { as: alice(), query: { updateMask: "role" }, body: { role: "ADMIN" } }))).toMatchObject({ role: "ADMIN" });
		// Now bob is an ADMIN too: alice may step down, and then bob is the last one.
		expect(await ok(api.request("PATCH", member(space, "user1"), { as: alice(), query: { updateMask: "role" }, body: { role: 2 } }))).toMatchObject({ role: "MEMBER" });
		expectError(await api.request("PATCH", member(space, "user1"), { as: alice(), query: { updateMask: "role" }, body: { role: "ADMIN" } }), 403, 7);
		expectError(await api.request("DELETE", member(space, "user2"), { as: bob() }), 400, 9);
		expect((await api.request("DELETE", member(space, "user1"), { as: alice() })).status).toBe(200);
		expectError(await api.request("GET", `/${space.name}`, { as: alice() }), 404, 5);
		expect(await ok(api.request<Space>("GET", `/${space.name}`, { as: bob() }))).toMatchObject({ memberCount: 1, membership: { role: "ADMIN" } });
	});

	test("RemoveSpaceMember: a MEMBER may leave but not remove others; space ADMINs and instance ADMINs remove anyone", async () => {
		const space = await createSpace(alice(), { displayName: "Leave" });
		for (const name of ["user2", "user3", "user4"]) await ok(addMember(alice(), space, name));
		expectError(await api.request("DELETE", member(space, "user3"), { as: bob() }), 403, 7);
		expect((await api.request("DELETE", member(space, "user2"), { as: bob() })).text).toBe("");
		expectError(await api.request("GET", `/${space.name}`, { as: bob() }), 404, 5);
		expect((await api.request("DELETE", member(space, "user3"), { as: alice() })).status).toBe(200);
		expect((await api.request("DELETE", member(space, "user4"), { as: admin() })).status).toBe(200);
		expect((await ok(api.request<Space>("GET", `/${space.name}`, { as: alice() }))).memberCount).toBe(1);
		// A member removed can be added again.
		expect(await ok(addMember(admin(), space, "user2"))).toMatchObject({ role: "MEMBER" });
	});

	test("instance ADMINs add members and change roles without being members", async () => {
		const space = await createSpace(alice(), { displayName: "Admin managed" });
		await ok(addMember(admin(), space, "user2", "ADMIN"));
		expect(await ok(api.request("PATCH", member(space, "user1"), { as: admin(), query: { updateMask: "role" }, body: { role: "MEMBER" } }))).toMatchObject({ role: "MEMBER" });
		const list = await ok(api.request<{ members: unknown[] }>("GET", `/${space.name}/members`, { as: admin() }));
		expect(list.members).toHaveLength(2);
	});
});

describe("at least one ADMIN under concurrent changes", () => {
	test("concurrent demotions of every ADMIN leave exactly one", async () => {
		for (let round = 0; round < 5; round++) {
			const space = await createSpace(alice(), { displayName: "Race" });
			for (const name of ["user2", "user3", "user4"]) await ok(addMember(alice(), space, name, "ADMIN"));
			const answers = await Promise.all(
				["user1", "user2", "user3", "user4"].map(name => api.request("PATCH", member(space, name), { as: admin(), query: { updateMask: "role" }, body: { role: "MEMBER" } }))
			);
			expect(answers.filter(a => a.status === 200)).toHaveLength(3);
			const list = await ok(api.request<{ members: { role: string }[] }>("GET", `/${space.name}/members`, { as: admin() }));
			expect(list.members.filter(m => m.role === "ADMIN")).toHaveLength(1);
		}
	});

	test("concurrent removals, leaves and demotions of two ADMINs keep one", async () => {
		for (let round = 0; round < 5; round++) {
			const space = await createSpace(alice(), { displayName: "Race 2" });
			await ok(addMember(alice(), space, "user2", "ADMIN"));
			await ok(addMember(alice(), space, "user3"));
			const answers = await Promise.all([
				api.request("DELETE", member(space, "user1"), { as: alice() }),
				api.request("DELETE", member(space, "user2"), { as: admin() }),
				api.request("PATCH", member(space, "user2"), { as: bob(), query: { updateMask: "role" }, body: { role: "MEMBER" } }),
				api.request("PATCH", member(space, "user1"), { as: admin(), query: { updateMask: "role" }, body: { role: "MEMBER" } })
			]);
			for (const answer of answers) expect([200, 400, 404]).toContain(answer.status);
			const list = await ok(api.request<{ members: { role: string }[] }>("GET", `/${space.name}/members`, { as: admin() }));
			expect(list.members.filter(m => m.role === "ADMIN").length).toBeGreaterThanOrEqual(1);
			const info = await ok(api.request<Space>("GET", `/${space.name}`, { as: admin() }));
			expect(info.memberCount).toBe(list.members.length);
		}
	});
});

describe("DeleteSpace", () => {
	test("space ADMINs delete an empty space; members may not; it is gone for everyone", async () => {
		const space = await createSpace(alice(), { displayName: "Doomed" });
		await ok(addMember(alice(), space, "user2"));
		expectError(await api.request("DELETE", `/${space.name}`, { as: bob() }), 403, 7);
		const res = await api.request("DELETE", `/${space.name}`, { as: alice() });
		expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: "" });
		expectError(await api.request("GET", `/${space.name}`, { as: alice() }), 404, 5);
		const mine = await ok(api.request<{ spaces: Space[] }>("GET", "/spaces", { as: bob() }));
		expect(mine.spaces.map(s => s.name)).not.toContain(space.name);
		// The id is free again.
		expect((await createSpace(bob(), { displayName: "Reborn" }, space.name.slice("spaces/".length))).membership).toMatchObject({ role: "ADMIN" });
	});

	test("with memos placed: FAILED_PRECONDITION without force; force detaches them and SPACE memos become PRIVATE", async () => {
		const space = await createSpace(alice(), { displayName: "Full" });
		await ok(addMember(alice(), space, "user2"));
		const spaceMemo = await ok(api.create(bob(), { content: "space memo", visibility: "SPACE", space: space.name }));
		const publicMemo = await ok(api.create(alice(), { content: "public in space", visibility: "PUBLIC", space: space.name }));
		expectError(await api.request("DELETE", `/${space.name}`, { as: alice() }), 400, 9);
		expectError(await api.request("DELETE", `/${space.name}`, { as: alice(), query: { force: "false" } }), 400, 9);
		expectError(await api.request("DELETE", `/${space.name}`, { as: alice(), query: { force: "maybe" } }), 400, 3);
		expect((await api.request("DELETE", `/${space.name}`, { as: admin(), query: { force: "true" } })).status).toBe(200);
		expect(await ok(api.get(bob(), spaceMemo.name))).toMatchObject({ space: null, visibility: "PRIVATE" });
		expectError(await api.get(alice(), spaceMemo.name), 403, 7);
		expect(await ok(api.get(carol(), publicMemo.name))).toMatchObject({ space: null, visibility: "PUBLIC" });
	});

	test("soft-deleted memos do not block deletion", async () => {
		const space = await createSpace(alice(), { displayName: "Soft" });
		const memo = await ok(api.create(alice(), { content: "gone", visibility: "SPACE", space: space.name }));
		expect((await api.remove(alice(), memo.name)).status).toBe(200);
		expect((await api.request("DELETE", `/${space.name}`, { as: alice() })).status).toBe(200);
	});
});

describe("DeleteUser", () => {
	test("DeleteUser removes the user's memberships; a last ADMIN's space passes to the longest-standing member, an emptied space is deleted", async () => {
		await signUp(app().baseUrl, "leaver", undefined, { accessToken: admin().accessToken });
		const { signIn } = await import("../support/users.js");
		const leaver = await signIn(app().baseUrl, "leaver");
		const shared = await createSpace(leaver, { displayName: "Handed over" });
		await ok(addMember(leaver, shared, "user3"));
		await ok(addMember(leaver, shared, "user4"));
		const alone = await createSpace(leaver, { displayName: "Alone" });
		const joined = await createSpace(alice(), { displayName: "Joined" });
		await ok(addMember(alice(), joined, "leaver"));
		expect((await api.request("DELETE", "/users/leaver", { as: admin() })).status).toBe(200);
		expect(await ok(api.request<Space>("GET", `/${shared.name}`, { as: carol() }))).toMatchObject({ memberCount: 2, membership: { role: "ADMIN" } });
		expect(await ok(api.request<Space>("GET", `/${shared.name}`, { as: dave() }))).toMatchObject({ membership: { role: "MEMBER" } });
		expectError(await api.request("GET", `/${alone.name}`, { as: admin() }), 404, 5);
		expect((await ok(api.request<Space>("GET", `/${joined.name}`, { as: alice() }))).memberCount).toBe(1);
	});
});
