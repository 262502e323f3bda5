import type { ServiceError } from "../../shared/errors.js";
import type { Collection, Doc } from "../../shared/store/document-store.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { beginChange, changeRole, removeMember, type GuardCollections } from "../../services/spaces/admin-guard.js";
import { memberId, type MemberDoc, type SpaceDoc, type SpaceRole } from "../../services/spaces/space-doc.js";
import { joinableUser, readDescription, readDisplayName, readRole, readUserName } from "../../services/spaces/space-input.js";
import type { UserRef } from "../../services/auth/auth.contract.js";
import { codeOf, expectInvalidArgument, expectServiceError } from "../support/service-errors.js";

describe("space input (contract 4.7, 9)", () => {
	test.each([
		["", "INVALID_ARGUMENT"],
		["   ", "INVALID_ARGUMENT"],
		[undefined, "INVALID_ARGUMENT"],
		[3, "INVALID_ARGUMENT"],
		["x".repeat(101), "INVALID_ARGUMENT"],
		["x".repeat(100), "OK"],
		["🙂".repeat(100), "OK"],
		[" Team ", "OK"]
	])("display name %j: %s", (value, code) => {
		expect(codeOf(() => readDisplayName(value))).toBe(code);
	});

	test("display names are trimmed; descriptions are kept as given, up to 2000 characters", () => {
		expect(readDisplayName("  Team  ")).toBe("Team");
		expect(readDescription(" d ")).toBe(" d ");
		expect(readDescription(undefined)).toBe("");
		expect(codeOf(() => readDescription("d".repeat(2001)))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => readDescription("d".repeat(2000)))).toBe("OK");
	});

	test("roles: names or numbers; unspecified takes the default where there is one", () => {
		expect(readRole("ADMIN")).toBe("ADMIN");
		expect(readRole(2)).toBe("MEMBER");
		expect(readRole(undefined, "MEMBER")).toBe("MEMBER");
		expect(readRole("ROLE_UNSPECIFIED", "MEMBER")).toBe("MEMBER");
		for (const bad of ["OWNER", "admin", 3, -1, "ROLE_UNSPECIFIED", undefined, true]) expect(codeOf(() => readRole(bad))).toBe("INVALID_ARGUMENT");
		expectInvalidArgument(() => readRole("OWNER"), "role must be one of");
	});

	test("member users are users/{username}", () => {
		expect(readUserName("users/bob", "user")).toBe("bob");
		for (const bad of [undefined, "", "bob", "users/", "users/b/c", "spaces/bob", 7]) expect(codeOf(() => readUserName(bad, "user"))).toBe("INVALID_ARGUMENT");
	});

	test("each refusal names the field and the rule", () => {
		expectInvalidArgument(() => readDisplayName(7), "displayName must be a string");
		expectInvalidArgument(() => readDisplayName(" "), "displayName is required");
		expectInvalidArgument(() => readDisplayName("x".repeat(101)), "displayName must be at most 100 characters");
		expectInvalidArgument(() => readDescription(7), "description must be a string");
		expectInvalidArgument(() => readDescription("🙂".repeat(2001)), "description must be at most 2000 characters");
		expect(readDescription("🙂".repeat(2000))).toHaveLength(4000);
		expectInvalidArgument(() => readRole(undefined), "role must be ADMIN or MEMBER");
		expectInvalidArgument(() => readUserName(undefined, "member.user"), "member.user is required");
		expectInvalidArgument(() => readUserName("", "member.user"), "member.user is required");
		expectInvalidArgument(() => readUserName(7, "member.user"), "member.user must be a resource name of the form users/{user}");
	});

	test("a user joins a space unless unknown (NOT_FOUND) or archived (FAILED_PRECONDITION)", () => {
		const bob = { id: "u-bob", username: "bob", state: "NORMAL" } as UserRef;
		expect(joinableUser(bob, "bob")).toBe(bob);
		expectServiceError(() => joinableUser(undefined, "bob"), "NOT_FOUND", 'user "users/bob" not found');
		expectServiceError(() => joinableUser({ ...bob, state: "ARCHIVED" }, "bob"), "FAILED_PRECONDITION", 'user "users/bob" is archived');
	});
});

/** Every store call first yields a random number of times, so concurrent changes interleave differently each round. */
function jittered<T extends Doc>(collection: Collection<T>): Collection<T> {
	const pause = async () => {
		for (let i = Math.floor(Math.random() * 4); i > 0; i--) await new Promise(resolve => setImmediate(resolve));
	};
	return new Proxy(collection, {
		get(target, key, receiver) {
			const value = Reflect.get(target, key, receiver) as unknown;
			if (typeof value !== "function") return value;
			return async (...args: unknown[]) => {
				await pause();
				return (value as (...a: unknown[]) => unknown).apply(target, args);
			};
		}
	});
}

describe("at least one ADMIN (admin-guard.ts)", () => {
	let store: SqliteDocumentStore;
	let db: GuardCollections;
	let round = 0;

	beforeEach(() => {
		store = new SqliteDocumentStore({ dir: null });
		db = { spaces: jittered(store.collection<SpaceDoc>("spaces")), members: jittered(store.collection<MemberDoc>("space_members")) };
	});

	afterEach(async () => {
		await store.close();
	});

	async function seed(roles: SpaceRole[]): Promise<string> {
		round += 1;
		const spaceId = `s${round}`;
		await db.spaces.insert({ _id: spaceId, seq: round, displayName: "s", description: "", creatorId: "u0", createTime: 0, updateTime: 0, memberCount: roles.length, adminCount: roles.filter(r => r === "ADMIN").length });
		for (const [i, role] of roles.entries()) {
			await db.members.insert({ _id: memberId(spaceId, `u${i}`), spaceId, userId: `u${i}`, role, joinTime: 0, seq: i, spaceCreateTime: 0, spaceSeq: round });
		}
		return spaceId;
	}

	async function settle(promises: Promise<unknown>[]): Promise<number> {
		const results = await Promise.allSettled(promises);
		for (const result of results) {
			if (result.status === "rejected") expect((result.reason as ServiceError).type).toBe("FAILED_PRECONDITION");
		}
		return results.filter(r => r.status === "fulfilled").length;
	}

	async function expectConsistent(spaceId: string): Promise<void> {
		const members = await db.members.find({ spaceId });
		const space = await db.spaces.findOne({ _id: spaceId });
		const admins = members.filter(m => m.role === "ADMIN").length;
		expect(admins).toBeGreaterThanOrEqual(1);
		expect(space).toMatchObject({ adminCount: admins, memberCount: members.length });
	}

	test("a membership change is counted in on its own space only", async () => {
		const [first, second] = [await seed(["ADMIN", "ADMIN"]), await seed(["ADMIN", "ADMIN"])];
		await beginChange(db.spaces, second, false);
		await beginChange(db.spaces, second, true);
		expect(await db.spaces.findOne({ _id: second })).toMatchObject({ pendingChanges: 2, adminCount: 1 });
		const untouched = await db.spaces.findOne({ _id: first });
		expect([untouched?.pendingChanges, untouched?.adminCount]).toEqual([undefined, 2]);
	});

	test("concurrent demotions of every ADMIN leave one, and the counter matches", async () => {
		for (let i = 0; i < 30; i++) {
			const spaceId = await seed(["ADMIN", "ADMIN", "ADMIN", "MEMBER"]);
			const done = await settle([0, 1, 2].map(u => changeRole(db, memberId(spaceId, `u${u}`), "MEMBER")));
			expect(done).toBe(2);
			await expectConsistent(spaceId);
		}
	});

	test("concurrent removals, demotions and promotions keep an ADMIN and a true count", async () => {
		for (let i = 0; i < 30; i++) {
			const spaceId = await seed(["ADMIN", "ADMIN", "MEMBER", "MEMBER"]);
			await settle([
				removeMember(db, memberId(spaceId, "u0")),
				changeRole(db, memberId(spaceId, "u1"), "MEMBER"),
				removeMember(db, memberId(spaceId, "u1")),
				changeRole(db, memberId(spaceId, "u2"), "ADMIN"),
				changeRole(db, memberId(spaceId, "u2"), "MEMBER"),
				removeMember(db, memberId(spaceId, "u3")),
				changeRole(db, memberId(spaceId, "u0"), "MEMBER")
			]);
			await expectConsistent(spaceId);
		}
	});

	test("the last ADMIN can be neither demoted nor removed; unknown memberships are null", async () => {
		const spaceId = await seed(["ADMIN", "MEMBER"]);
		await expect(changeRole(db, memberId(spaceId, "u0"), "MEMBER")).rejects.toMatchObject({ type: "FAILED_PRECONDITION" });
		await expect(removeMember(db, memberId(spaceId, "u0"))).rejects.toMatchObject({ type: "FAILED_PRECONDITION" });
		expect(await changeRole(db, memberId(spaceId, "nobody"), "ADMIN")).toBeNull();
		expect(await removeMember(db, memberId(spaceId, "nobody"))).toBeNull();
		await expectConsistent(spaceId);
	});

	test("the last ADMIN's refusal says why", async () => {
		const spaceId = await seed(["ADMIN"]);
		await expect(changeRole(db, memberId(spaceId, "u0"), "MEMBER")).rejects.toMatchObject({ type: "FAILED_PRECONDITION", message: "a space must keep at least one ADMIN" });
	});

	test("a finished change is counted out: nothing left pending, the time it began recorded", async () => {
		const spaceId = await seed(["ADMIN", "ADMIN", "MEMBER"]);
		const before = Date.now();
		expect(await changeRole(db, memberId(spaceId, "u0"), "MEMBER")).toMatchObject({ role: "MEMBER" });
		expect(await changeRole(db, memberId(spaceId, "u2"), "ADMIN")).toMatchObject({ role: "ADMIN" });
		expect(await removeMember(db, memberId(spaceId, "u1"))).toMatchObject({ role: "ADMIN" });
		const space = await db.spaces.findOne({ _id: spaceId });
		expect(space).toMatchObject({ pendingChanges: 0, adminCount: 1, memberCount: 2 });
		expect(space?.changedAt).toBeGreaterThanOrEqual(before);
		await expectConsistent(spaceId);
	});
});

/**
 * A change that loses the race: another request changes the same membership (through the guard,
 * on the plain collections) after this one read it and before its conditional write.
 */
describe("a membership changed between read and write (admin-guard.ts)", () => {
	let store: SqliteDocumentStore;
	let plain: GuardCollections;

	beforeEach(() => {
		store = new SqliteDocumentStore({ dir: null });
		plain = { spaces: store.collection<SpaceDoc>("spaces"), members: store.collection<MemberDoc>("space_members") };
	});

	afterEach(async () => {
		await store.close();
	});

	async function seed(roles: SpaceRole[]): Promise<void> {
		await plain.spaces.insert({ _id: "s", seq: 1, displayName: "s", description: "", creatorId: "u0", createTime: 0, updateTime: 0, memberCount: roles.length, adminCount: roles.filter(r => r === "ADMIN").length });
		for (const [i, role] of roles.entries()) {
			await plain.members.insert({ _id: memberId("s", `u${i}`), spaceId: "s", userId: `u${i}`, role, joinTime: 0, seq: i, spaceCreateTime: 0, spaceSeq: 1 });
		}
	}

	/** The guard's collections, with `competitor` run once just before the first conditional membership write; `writes` counts those writes. */
	function racing(competitor: () => Promise<unknown>): GuardCollections & { writes: number } {
		let pending: (() => Promise<unknown>) | undefined = competitor;
		const raced = { spaces: plain.spaces, writes: 0 } as GuardCollections & { writes: number };
		const members = plain.members;
		raced.members = new Proxy(members, {
			get(target, key, receiver) {
				const value = Reflect.get(target, key, receiver) as unknown;
				if (key !== "findOneAndUpdate" && key !== "remove") return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
				return async (...args: unknown[]) => {
					raced.writes += 1;
					const run = pending;
					pending = undefined;
					if (run !== undefined) await run();
					return (value as (...a: unknown[]) => unknown).apply(target, args);
				};
			}
		});
		return raced;
	}

	async function expectCounts(adminCount: number, memberCount: number): Promise<void> {
		const members = await plain.members.find({ spaceId: "s" });
		expect({ admins: members.filter(m => m.role === "ADMIN").length, members: members.length }).toEqual({ admins: adminCount, members: memberCount });
		expect(await plain.spaces.findOne({ _id: "s" })).toMatchObject({ adminCount, memberCount, pendingChanges: 0 });
	}

	test("a promotion that finds the member promoted already answers the membership and counts the ADMIN once", async () => {
		await seed(["ADMIN", "MEMBER"]);
		const db = racing(() => changeRole(plain, memberId("s", "u1"), "ADMIN"));
		expect(await changeRole(db, memberId("s", "u1"), "ADMIN")).toMatchObject({ role: "ADMIN", userId: "u1" });
		await expectCounts(2, 2);
	});

	test("a demotion that finds the member demoted already gives its reserved ADMIN back", async () => {
		await seed(["ADMIN", "ADMIN", "ADMIN"]);
		const db = racing(() => changeRole(plain, memberId("s", "u0"), "MEMBER"));
		expect(await changeRole(db, memberId("s", "u0"), "MEMBER")).toMatchObject({ role: "MEMBER", userId: "u0" });
		await expectCounts(2, 3);
	});

	test("a removal that finds the member's role changed retries: an ADMIN's reservation is given back, a promoted MEMBER is removed as an ADMIN", async () => {
		await seed(["ADMIN", "ADMIN", "ADMIN", "MEMBER"]);
		const demoted = racing(() => changeRole(plain, memberId("s", "u0"), "MEMBER"));
		expect(await removeMember(demoted, memberId("s", "u0"))).toMatchObject({ role: "MEMBER", userId: "u0" });
		await expectCounts(2, 3);
		const promoted = racing(() => changeRole(plain, memberId("s", "u3"), "ADMIN"));
		expect(await removeMember(promoted, memberId("s", "u3"))).toMatchObject({ role: "ADMIN", userId: "u3" });
		await expectCounts(2, 2);
	});

	test("a membership that changes on every attempt: ABORTED after 5 attempts, counters as before", async () => {
		await seed(["ADMIN", "ADMIN", "MEMBER"]);
		const flapping = (): GuardCollections & { writes: number } => {
			const raced = racing(async () => undefined);
			const members = raced.members;
			raced.members = new Proxy(members, {
				get(target, key, receiver) {
					if (key === "findOneAndUpdate") return async () => ((raced.writes += 1), null);
					if (key === "remove") return async () => ((raced.writes += 1), 0);
					return Reflect.get(target, key, receiver) as unknown;
				}
			});
			return raced;
		};
		for (const attempt of [(db: GuardCollections) => changeRole(db, memberId("s", "u0"), "MEMBER"), (db: GuardCollections) => changeRole(db, memberId("s", "u2"), "ADMIN"), (db: GuardCollections) => removeMember(db, memberId("s", "u1"))]) {
			const db = flapping();
			await expect(attempt(db)).rejects.toMatchObject({ type: "ABORTED", message: "the membership changed concurrently; retry" });
			expect(db.writes).toBe(5);
			await expectCounts(2, 3);
		}
	});
});
