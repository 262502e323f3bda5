import type { Context } from "moleculer";
import { assertCanRead, assertCanWrite } from "../../services/attachments/attachment-access.js";
import type { AttachmentDoc } from "../../services/attachments/attachment-doc.js";
import { findByUsername, keepOneActiveAdmin, mayReadEmail, requireAdmin as requireUserAdmin } from "../../services/auth/user-access.js";
import { USERS, type UserDoc } from "../../services/auth/user-doc.js";
import { anonymousOnPrivateInstance, instanceIsPublic } from "../../services/gateway/anonymous-access.js";
import { instanceActions } from "../../services/instance/instance.contract.js";
import { requireAdmin as requireSettingAdmin, settingReadView } from "../../services/instance/setting-access.js";
import type { MemoAccessInfo } from "../../services/memos/memos.contract.js";
import { assertSpaceAccess, spaceFor } from "../../services/spaces/space-access.js";
import { memberId, type MemberDoc, type SpaceDoc } from "../../services/spaces/space-doc.js";
import { spacesStore } from "../../services/spaces/spaces-store.js";
import type { Caller, RequestMeta } from "../../shared/caller.js";
import type { InstanceSettingKey } from "../../shared/names.js";
import { IDEMPOTENT_RETRIES } from "../../shared/runtime/call-failures.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { codeOf, expectServiceError, rejectionOf } from "../support/service-errors.js";

/** The access checks of contract 2.2, 2.4, 3, 8 and 11.2, each answer and its error code. */

const admin: Caller = { id: "u-admin", username: "admin", role: "ADMIN" };
const owner: Caller = { id: "u-owner", username: "owner", role: "USER" };
const other: Caller = { id: "u-other", username: "other", role: "USER" };

describe("attachments (contract 3.3, 8.1, 8.3)", () => {
	const attachment = (memoId: string | null) => ({ _id: "a1", creatorId: owner.id, memoId }) as AttachmentDoc;
	const memo = (read: MemoAccessInfo["read"]): MemoAccessInfo => ({ id: "m1", creatorId: owner.id, spaceId: null, read, publicRead: false, spaceReadable: false });
	const readCode = (doc: AttachmentDoc | null, caller: Caller | null, info?: MemoAccessInfo) => codeOf(() => assertCanRead(doc, "a1", caller, info));

	test("a missing attachment is NOT_FOUND and names itself", () => {
		expectServiceError(() => assertCanRead(null, "a1", admin, undefined), "NOT_FOUND", '"attachments/a1"');
		expectServiceError(() => assertCanWrite(null, "a1", admin), "NOT_FOUND", '"attachments/a1"');
	});

	test("unlinked: its creator and instance admins read it, others are refused, anonymous callers must sign in", () => {
		expect(readCode(attachment(null), owner)).toBe("OK");
		expect(readCode(attachment(null), admin)).toBe("OK");
		expectServiceError(() => assertCanRead(attachment(null), "a1", other, undefined), "PERMISSION_DENIED", '"attachments/a1"');
		expect(readCode(attachment(null), null)).toBe("UNAUTHENTICATED");
	});

	test("linked: the memo's read rule decides, whoever created the attachment", () => {
		for (const caller of [owner, admin, other]) {
			expect(readCode(attachment("m1"), caller, memo("OK"))).toBe("OK");
			expect(readCode(attachment("m1"), caller, undefined)).toBe("NOT_FOUND");
			expect(readCode(attachment("m1"), caller, memo("NOT_FOUND"))).toBe("NOT_FOUND");
			expect(readCode(attachment("m1"), caller, memo("UNAUTHENTICATED"))).toBe("UNAUTHENTICATED");
			expectServiceError(() => assertCanRead(attachment("m1"), "a1", caller, memo("PERMISSION_DENIED")), "PERMISSION_DENIED", '"attachments/a1"');
		}
		expect(readCode(attachment("m1"), null, memo("OK"))).toBe("OK");
	});

	test("changes: its creator and instance admins only", () => {
		expect(codeOf(() => assertCanWrite(attachment("m1"), "a1", owner))).toBe("OK");
		expect(codeOf(() => assertCanWrite(attachment(null), "a1", admin))).toBe("OK");
		expectServiceError(() => assertCanWrite(attachment(null), "a1", other), "PERMISSION_DENIED", '"attachments/a1"');
	});
});

describe("users (contract 2.4)", () => {
	const user = (id: string, role: UserDoc["role"], state: UserDoc["state"] = "NORMAL") => ({ _id: id, username: id, role, state }) as UserDoc;
	const usersWith = async (...docs: UserDoc[]) => {
		const users = new SqliteDocumentStore({ dir: null }).collection<UserDoc>(USERS);
		for (const doc of docs) await users.insert(doc);
		return users;
	};

	test("a user is found by username; an empty, missing or non-string name is NOT_FOUND", async () => {
		const users = await usersWith(user("alice", "USER"));
		expect((await findByUsername(users, "alice"))._id).toBe("alice");
		for (const name of ["bob", "", undefined, 7]) {
			const err = await rejectionOf(findByUsername(users, name));
			expect(err.type).toBe("NOT_FOUND");
			expect(err.message).toBe(`user ${String(name)} not found`);
		}
	});

	test("an e-mail address is shown to the user themself and to admins only", () => {
		const doc = user(owner.id, "USER");
		expect(mayReadEmail(owner, doc)).toBe(true);
		expect(mayReadEmail(admin, doc)).toBe(true);
		expect(mayReadEmail(other, doc)).toBe(false);
		expect(mayReadEmail(null, doc)).toBe(false);
		expect(mayReadEmail(undefined, doc)).toBe(false);
	});

	test("admin-only user operations refuse users and anonymous callers with PERMISSION_DENIED", () => {
		expect(codeOf(() => requireUserAdmin(admin))).toBe("OK");
		expectServiceError(() => requireUserAdmin(owner), "PERMISSION_DENIED", "only an admin");
		expect(codeOf(() => requireUserAdmin(null))).toBe("PERMISSION_DENIED");
	});

	test("the last active admin cannot be removed; another active admin, or a user, or an archived admin can", async () => {
		const users = await usersWith(user("a1", "ADMIN"), user("a2", "ADMIN", "ARCHIVED"), user("u1", "USER"));
		const err = await rejectionOf(keepOneActiveAdmin(users, user("a1", "ADMIN"), "delete"));
		expect(err.type).toBe("FAILED_PRECONDITION");
		expect(err.message).toBe("cannot delete the last active admin");
		await expect(keepOneActiveAdmin(users, user("u1", "USER"), "delete")).resolves.toBeUndefined();
		await expect(keepOneActiveAdmin(users, user("a2", "ADMIN", "ARCHIVED"), "delete")).resolves.toBeUndefined();
		await users.insert(user("a3", "ADMIN"));
		await expect(keepOneActiveAdmin(users, user("a1", "ADMIN"), "delete")).resolves.toBeUndefined();
	});

	test("only an active ADMIN is checked: a user or an archived admin passes whatever admins the store holds", async () => {
		const noActiveAdmin = await usersWith(user("a2", "ADMIN", "ARCHIVED"), user("u1", "USER"));
		await expect(keepOneActiveAdmin(noActiveAdmin, user("u1", "USER"), "archive")).resolves.toBeUndefined();
		await expect(keepOneActiveAdmin(noActiveAdmin, user("a2", "ADMIN", "ARCHIVED"), "delete")).resolves.toBeUndefined();
	});

	test("a username that is not a string never reaches the store as a query operator", async () => {
		const users = await usersWith(user("alice", "USER"));
		for (const name of [{ $ne: "nobody" }, { $exists: true }, ["alice"]]) expect((await rejectionOf(findByUsername(users, name))).type).toBe("NOT_FOUND");
	});
});

describe("spaces (contract 1.10, 3.4, 9)", () => {
	const space = { _id: "s1" } as SpaceDoc;
	const member = (role: MemberDoc["role"]) => ({ role }) as MemberDoc;
	const access = (doc: SpaceDoc | null, membership: MemberDoc | null, caller: Caller, need: "member" | "admin") =>
		codeOf(() => assertSpaceAccess(doc, membership, "s1", caller, need));

	test("a missing space and a space the caller is not in are both NOT_FOUND, except to instance admins", () => {
		expectServiceError(() => assertSpaceAccess(null, member("ADMIN"), "s1", owner, "member"), "NOT_FOUND", '"spaces/s1"');
		expect(access(null, null, admin, "member")).toBe("NOT_FOUND");
		expect(access(space, null, owner, "member")).toBe("NOT_FOUND");
		expect(access(space, null, owner, "admin")).toBe("NOT_FOUND");
		expect(access(space, null, admin, "member")).toBe("OK");
		expect(access(space, member("MEMBER"), owner, "member")).toBe("OK");
	});

	test("space management needs a space ADMIN or an instance admin", () => {
		expect(access(space, member("ADMIN"), owner, "admin")).toBe("OK");
		expect(access(space, null, admin, "admin")).toBe("OK");
		expect(access(space, member("MEMBER"), admin, "admin")).toBe("OK");
		expectServiceError(() => assertSpaceAccess(space, member("MEMBER"), "s1", owner, "admin"), "PERMISSION_DENIED", '"spaces/s1"');
	});

	test("a {space} path parameter: the space and the caller's own membership, checked", async () => {
		const documents = new SqliteDocumentStore({ dir: null });
		try {
			const store = spacesStore(documents);
			const s1 = { _id: "s1", seq: 1, displayName: "s", description: "", creatorId: owner.id, createTime: 0, updateTime: 0, memberCount: 2, adminCount: 1 };
			await store.spaces.insert(s1);
			await store.spaces.insert({ ...s1, _id: "s2", seq: 2 });
			const joined = (userId: string, role: MemberDoc["role"]) => ({ _id: memberId("s1", userId), spaceId: "s1", userId, role, joinTime: 0, seq: 1, spaceCreateTime: 0, spaceSeq: 1 });
			await store.members.insert(joined(owner.id, "ADMIN"));
			await store.members.insert(joined(other.id, "MEMBER"));
			expect(await spaceFor(store, "s1", owner, "admin")).toEqual({ space: s1, membership: joined(owner.id, "ADMIN") });
			expect(await spaceFor(store, "s1", other, "member")).toEqual({ space: s1, membership: joined(other.id, "MEMBER") });
			expect((await rejectionOf(spaceFor(store, "s1", other, "admin"))).type).toBe("PERMISSION_DENIED");
			expect((await rejectionOf(spaceFor(store, "s2", owner, "member"))).type).toBe("NOT_FOUND");
			expect((await spaceFor(store, "s2", admin, "admin")).membership).toBeNull();
			expect((await rejectionOf(spaceFor(store, "nope", admin, "member"))).type).toBe("NOT_FOUND");
		} finally {
			await documents.close();
		}
	});
});

describe("instance settings (contract 11.2)", () => {
	const view = (key: InstanceSettingKey, caller: Caller | null | undefined) => {
		try {
			return settingReadView(key, caller);
		} catch (err) {
			return (err as { type: string }).type;
		}
	};

	test("GENERAL, MEMO_RELATED, TAGS and ACCESS are public; admins get the admin view of them", () => {
		for (const key of ["GENERAL", "MEMO_RELATED", "TAGS", "ACCESS"] as const) {
			expect(view(key, undefined)).toBe("member");
			expect(view(key, null)).toBe("member");
			expect(view(key, owner)).toBe("member");
			expect(view(key, admin)).toBe("admin");
		}
	});

	test("AI is for signed-in users; the others are for admins only", () => {
		expect(view("AI", null)).toBe("UNAUTHENTICATED");
		expect(view("AI", owner)).toBe("member");
		expect(view("AI", admin)).toBe("admin");
		for (const key of ["STORAGE", "NOTIFICATION"] as const) {
			expect(view(key, null)).toBe("UNAUTHENTICATED");
			expect(view(key, admin)).toBe("admin");
			expectServiceError(() => settingReadView(key, owner), "PERMISSION_DENIED", `the ${key} setting`);
		}
	});

	test("admin-only setting operations: anonymous UNAUTHENTICATED, users PERMISSION_DENIED", () => {
		expect(requireSettingAdmin(admin, "x")).toBe(admin);
		expect(codeOf(() => requireSettingAdmin(undefined, "x"))).toBe("UNAUTHENTICATED");
		expectServiceError(() => requireSettingAdmin(owner, "change settings"), "PERMISSION_DENIED", "only admins may change settings");
	});
});

describe("anonymous callers (contract 2.2)", () => {
	/** A request context whose instance service answers the ACCESS mode `mode`, counting the calls. */
	const contextOf = (user: Caller | null, mode: string) => {
		const calls: string[] = [];
		const options: unknown[] = [];
		const ctx = {
			meta: { user } satisfies RequestMeta,
			call: async (action: string, _params: unknown, opts: unknown) => {
				calls.push(action);
				options.push(opts);
				return mode;
			}
		} as unknown as Context<unknown, RequestMeta>;
		return { ctx, calls, options };
	};

	test("the ACCESS mode is read as an idempotent call: Moleculer retries it on another instance node", async () => {
		const asked = contextOf(null, "INSTANCE_ACCESS_MODE_PUBLIC");
		await instanceIsPublic(asked.ctx);
		expect(asked.options).toEqual([{ retries: IDEMPOTENT_RETRIES }]);
	});

	test("the instance is public only in INSTANCE_ACCESS_MODE_PUBLIC", async () => {
		expect(await instanceIsPublic(contextOf(null, "INSTANCE_ACCESS_MODE_PUBLIC").ctx)).toBe(true);
		expect(await instanceIsPublic(contextOf(null, "INSTANCE_ACCESS_MODE_PRIVATE").ctx)).toBe(false);
	});

	test("only an anonymous caller on a private instance is shut out, and only anonymous callers make the instance be asked", async () => {
		const anonymousPrivate = contextOf(null, "INSTANCE_ACCESS_MODE_PRIVATE");
		expect(await anonymousOnPrivateInstance(anonymousPrivate.ctx)).toBe(true);
		expect(anonymousPrivate.calls).toEqual([instanceActions.accessMode.name]);
		expect(await anonymousOnPrivateInstance(contextOf(null, "INSTANCE_ACCESS_MODE_PUBLIC").ctx)).toBe(false);
		const signedIn = contextOf(owner, "INSTANCE_ACCESS_MODE_PRIVATE");
		expect(await anonymousOnPrivateInstance(signedIn.ctx)).toBe(false);
		expect(signedIn.calls).toEqual([]);
	});
});
