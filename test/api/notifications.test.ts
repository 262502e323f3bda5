import type { MemosDeps } from "../../services/memos/memos-deps.js";
import { documentsOf } from "../../shared/runtime/resources.js";
import { ok } from "../support/list-fixture.js";
import { usePopulatedApp } from "../support/populated-app.js";
import type { Session } from "../support/users.js";

/** Notifications (contract 17, upstream v0.30.0 `users/{user}/notifications`), over HTTP. */

const { app, api, admin, users } = usePopulatedApp(5);
const [user1, user2, user3, user4, user5] = users;

interface Payload {
	memo: string;
	relatedMemo: string;
	memoSnippet: string;
	relatedMemoSnippet: string;
}
interface Notification {
	name: string;
	sender: string;
	senderUser?: { name: string; username: string };
	status: string;
	createTime: string;
	type: string;
	memoComment?: Payload;
	memoMention?: Payload;
}
interface Page {
	notifications: Notification[];
	nextPageToken: string;
}

const usernameOf = (session: Session) => (session === admin() ? "admin" : `user${users.findIndex(user => user() === session) + 1}`);

async function inbox(as: Session): Promise<Notification[]> {
	return (await ok(api.request<Page>("GET", `/users/${usernameOf(as)}/notifications`, { as, query: { pageSize: "1000" } }))).notifications;
}

/** The notifications of `as` about `memo` (the comment or the memo with the mention). */
async function about(as: Session, memo: string): Promise<Notification[]> {
	return (await inbox(as)).filter(n => (n.memoComment ?? n.memoMention)?.memo === memo);
}

const create = (as: Session, content: string, visibility = "PUBLIC", extra: Record<string, unknown> = {}) => ok(api.create(as, { content, visibility, ...extra }));
const comment = (as: Session, memo: string, content: string, visibility = "PUBLIC") =>
	ok(api.request<{ name: string }>("POST", `/${memo}/comments`, { as, body: { content, visibility } }));

describe("MEMO_COMMENT", () => {
	test("a comment on someone else's memo notifies the memo's creator once, with upstream's shape; one's own comment notifies nobody", async () => {
		const memo = await create(user1(), "a memo to comment on");
		const before = (await inbox(user1())).length;
		const theirs = await comment(user2(), memo.name, "a comment from user2");
		await comment(user1(), memo.name, "the creator's own comment");

		const all = await inbox(user1());
		expect(all).toHaveLength(before + 1);
		const [notification] = await about(user1(), theirs.name);
		expect(notification).toEqual({
			name: expect.stringMatching(/^users\/user1\/notifications\/[A-Za-z0-9]{22}$/),
			sender: "users/user2",
			senderUser: expect.objectContaining({ name: "users/user2", username: "user2", email: "" }),
			status: "UNREAD",
			createTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
			type: "MEMO_COMMENT",
			memoComment: { memo: theirs.name, relatedMemo: memo.name, memoSnippet: "a comment from user2", relatedMemoSnippet: "a memo to comment on" }
		});
		expect(await inbox(user2())).not.toContainEqual(expect.objectContaining({ memoComment: expect.objectContaining({ relatedMemo: memo.name }) }));
	});

	test("a comment the memo's creator cannot read (PRIVATE) notifies nobody", async () => {
		const memo = await create(user1(), "commented privately");
		const before = await inbox(user1());
		await comment(user2(), memo.name, "only for me", "PRIVATE");
		expect(await inbox(user1())).toEqual(before);
	});
});

describe("MEMO_MENTION", () => {
	test("@username notifies that user once per memo, however often the memo is saved; a new mention notifies the new one only", async () => {
		const memo = await create(user1(), "hello @user2, see this");
		expect(await about(user2(), memo.name)).toEqual([
			expect.objectContaining({
				sender: "users/user1",
				type: "MEMO_MENTION",
				status: "UNREAD",
				memoMention: { memo: memo.name, relatedMemo: "", memoSnippet: "hello @user2, see this", relatedMemoSnippet: "" }
			})
		]);
		await ok(api.update(user1(), memo.name, "content", { content: "hello @user2, see this (edited)" }));
		await ok(api.update(user1(), memo.name, "pinned", { pinned: true }));
		await ok(api.update(user1(), memo.name, "content", { content: "hello @user2 and @user3" }));
		expect(await about(user2(), memo.name)).toHaveLength(1);
		expect(await about(user3(), memo.name)).toEqual([expect.objectContaining({ type: "MEMO_MENTION", sender: "users/user1" })]);
		await ok(api.update(user1(), memo.name, "content", { content: "@user3 @user3 again" }));
		expect(await about(user3(), memo.name)).toHaveLength(1);
	});

	test("mentions of unknown users, of the author, in code or in an e-mail address notify nobody", async () => {
		const counts = async () => Promise.all([user1(), user2()].map(async as => (await inbox(as)).length));
		const before = await counts();
		await create(user1(), "@nobody-here and @user1 and `@user2` and mail user2@example.com\n\n```\n@user2\n```");
		expect(await counts()).toEqual(before);
	});

	test("a user who cannot read the memo is not notified: PRIVATE, or a space they are not in; once readable, they are", async () => {
		// A notification the recipient cannot read shows no payload: count them all.
		const before = await inbox(user4());
		const memo = await create(user1(), "private note for @user4", "PRIVATE");
		expect(await inbox(user4())).toEqual(before);
		await ok(api.update(user1(), memo.name, "visibility", { visibility: "PROTECTED" }));
		expect(await inbox(user4())).toEqual([...(await about(user4(), memo.name)), ...before]);
		expect(await about(user4(), memo.name)).toHaveLength(1);

		const space = (await ok(api.request<{ name: string }>("POST", "/spaces", { as: user1(), query: { spaceId: "mentions" }, body: { displayName: "mentions" } }))).name;
		await ok(api.request("POST", `/${space}/members`, { as: user1(), body: { user: "users/user2" } }));
		const outsider = await inbox(user3());
		const spaceMemo = await create(user1(), "space news for @user2 and @user3", "SPACE", { space });
		expect(await about(user2(), spaceMemo.name)).toHaveLength(1);
		expect(await inbox(user3())).toEqual(outsider);
	});

	test("a mention in a comment names the commented memo; the commented memo's creator gets the MEMO_COMMENT only", async () => {
		const memo = await create(user1(), "the parent");
		const reply = await comment(user2(), memo.name, "@user1 @user3 look");
		expect((await about(user1(), reply.name)).map(n => n.type)).toEqual(["MEMO_COMMENT"]);
		expect(await about(user3(), reply.name)).toEqual([
			expect.objectContaining({ type: "MEMO_MENTION", memoMention: { memo: reply.name, relatedMemo: memo.name, memoSnippet: "@user1 @user3 look", relatedMemoSnippet: "the parent" } })
		]);
	});
});

describe("the inbox", () => {
	test("newest first, page by page; a bad page token is INVALID_ARGUMENT, a filter is ignored (as upstream)", async () => {
		const names: string[] = [];
		for (let i = 0; i < 3; i++) names.push((await create(user3(), `paging ${i} @user5`)).name);
		const all = await inbox(user5());
		expect(all.map(n => n.memoMention?.memo)).toEqual([...names].reverse());
		const first = await ok(api.request<Page>("GET", "/users/user5/notifications", { as: user5(), query: { pageSize: "2" } }));
		expect(first.notifications).toEqual(all.slice(0, 2));
		expect(first.nextPageToken).not.toBe("");
		const second = await ok(api.request<Page>("GET", "/users/user5/notifications", { as: user5(), query: { pageSize: "2", pageToken: first.nextPageToken } }));
		expect(second).toEqual({ notifications: all.slice(2), nextPageToken: "" });

		const refused = await api.request<{ code: number }>("GET", "/users/user5/notifications", { as: user5(), query: { pageToken: "not-a-token" } });
		expect([refused.status, refused.body.code]).toEqual([400, 3]);
		// Upstream v0.30.0 declares `filter` and never reads it: every notification still comes, whatever it says.
		for (const filter of ['status == "ARCHIVED"', "not even a filter", ""]) {
			expect(await ok(api.request<Page>("GET", "/users/user5/notifications", { as: user5(), query: { pageSize: "1000", filter } }))).toEqual({ notifications: all, nextPageToken: "" });
		}
	});

	test("the recipient archives, marks unread and deletes a notification", async () => {
		const memo = await create(user2(), "archive me @user4");
		const [notification] = await about(user4(), memo.name);
		const archived = await api.request<Notification>("PATCH", `/${notification.name}`, { as: user4(), query: { updateMask: "status" }, body: { status: "ARCHIVED" } });
		expect(archived.status).toBe(200);
		expect(archived.body).toEqual({ ...notification, status: "ARCHIVED" });
		expect(await about(user4(), memo.name)).toEqual([archived.body]);
		const unread = await api.request<Notification>("PATCH", `/${notification.name}`, { as: user4(), query: { updateMask: "status" }, body: { status: 1 } });
		expect(unread.body.status).toBe("UNREAD");

		for (const [query, body] of [
			[{}, { status: "ARCHIVED" }],
			[{ updateMask: "type" }, { type: "MEMO_COMMENT" }],
			[{ updateMask: "status" }, { status: "STATUS_UNSPECIFIED" }],
			[{ updateMask: "status" }, { status: "READ" }]
		] as const) {
			const res = await api.request<{ code: number }>("PATCH", `/${notification.name}`, { as: user4(), query, body });
			expect({ query, body, status: res.status }).toEqual({ query, body, status: 400 });
		}

		const removed = await api.request("DELETE", `/${notification.name}`, { as: user4() });
		expect({ status: removed.status, text: removed.text }).toEqual({ status: 200, text: "" });
		expect(await about(user4(), memo.name)).toEqual([]);
		expect((await api.request("DELETE", `/${notification.name}`, { as: user4() })).status).toBe(404);
		expect((await api.request("PATCH", `/${notification.name}`, { as: user4(), query: { updateMask: "status" }, body: { status: "ARCHIVED" } })).status).toBe(404);
	});

	test("only the recipient lists, updates or deletes: other users and instance ADMINs are refused, a foreign id under one's own name is NOT_FOUND", async () => {
		const memo = await create(user1(), "private matters @user2");
		const [notification] = await about(user2(), memo.name);
		const id = notification.name.split("/").at(-1) as string;
		const patch = { query: { updateMask: "status" }, body: { status: "ARCHIVED" } };
		for (const as of [user1(), user3(), admin()]) {
			expect((await api.request("GET", "/users/user2/notifications", { as })).status).toBe(403);
			expect((await api.request("PATCH", `/${notification.name}`, { as, ...patch })).status).toBe(403);
			expect((await api.request("DELETE", `/${notification.name}`, { as })).status).toBe(403);
		}
		expect((await api.request("PATCH", `/users/user3/notifications/${id}`, { as: user3(), ...patch })).status).toBe(404);
		expect((await api.request("DELETE", `/users/user3/notifications/${id}`, { as: user3() })).status).toBe(404);
		expect((await api.request("GET", "/users/user2/notifications", { as: null })).status).toBe(401);
		expect((await api.request("GET", "/users/nobody/notifications", { as: user2() })).status).toBe(404);
		expect(await about(user2(), memo.name)).toEqual([notification]);
	});
});

describe("what happens to notifications later", () => {
	test("a deleted memo's notifications stay without their payload (as upstream), soft-deleted or purged", async () => {
		const memo = await create(user1(), "short-lived @user3");
		const reply = await comment(user3(), memo.name, "a comment that goes away");
		const [mention] = await about(user3(), memo.name);
		const [commented] = await about(user1(), reply.name);
		await ok(api.remove(user1(), memo.name));
		const afterDelete = (await inbox(user3())).find(n => n.name === mention.name);
		expect(afterDelete).toEqual({ name: mention.name, sender: "users/user1", senderUser: mention.senderUser, status: "UNREAD", createTime: mention.createTime, type: "MEMO_MENTION" });
		// The comment survives its memo (an independent memo), but its notification named both.
		expect((await inbox(user1())).find(n => n.name === commented.name)).toEqual({ ...commented, memoComment: undefined });
		await ok(api.remove(user1(), memo.name, "true"));
		expect((await inbox(user3())).find(n => n.name === mention.name)).toEqual(afterDelete);
	});

	test("a memo hidden from the recipient later shows no payload until it is readable again", async () => {
		const memo = await create(user2(), "soon private @user1", "PROTECTED");
		const [notification] = await about(user1(), memo.name);
		await ok(api.update(user2(), memo.name, "visibility", { visibility: "PRIVATE" }));
		expect((await inbox(user1())).find(n => n.name === notification.name)).toEqual({ ...notification, memoMention: undefined });
		await ok(api.update(user2(), memo.name, "visibility", { visibility: "PROTECTED" }));
		expect(await about(user1(), memo.name)).toEqual([notification]);
	});

	test("a save whose notifications were not made (a crash after the memo's write) is completed by the repair pass", async () => {
		const memo = await create(user4(), "repair @user5");
		const id = memo.name.slice("memos/".length);
		const documents = documentsOf(app().node.broker);
		// What a crash right after the memo's write leaves: the mark, and no notification.
		expect(await documents.collection("memo_notifications").remove({ memoId: id }, { multi: true })).toBe(1);
		await documents.collection("memos").update({ _id: id }, { $set: { notifyPending: Date.now() - 120_000 } });
		expect(await about(user5(), memo.name)).toEqual([]);

		const memos = app().node.broker.getLocalService("memos") as unknown as { notifyPendingMemos(now: number): Promise<number> };
		expect(await memos.notifyPendingMemos(Date.now())).toBe(1);
		expect(await about(user5(), memo.name)).toEqual([expect.objectContaining({ type: "MEMO_MENTION", sender: "users/user4" })]);
		expect(await documents.collection("memos").count({ _id: id, notifyPending: { $exists: true } })).toBe(0);
		// Nothing is left to do, and a second run adds nothing.
		expect(await memos.notifyPendingMemos(Date.now())).toBe(0);
		expect(await about(user5(), memo.name)).toHaveLength(1);
	});

	test("when a peer fails while the notifications are made, the memo is saved, the request succeeds and the repair pass makes them", async () => {
		const service = app().node.broker.getLocalService("memos") as unknown as { deps(caller: unknown): MemosDeps; notifyPendingMemos(now: number): Promise<number> };
		const deps = service.deps;
		service.deps = caller => {
			const real = deps.call(service, caller);
			return { ...real, peers: { ...real.peers, users: () => Promise.reject(new Error("injected: auth unreachable")) } };
		};
		let memo;
		try {
			memo = await create(user4(), "while auth was away @user5");
		} finally {
			service.deps = deps;
		}
		expect((await ok(api.get(user4(), memo.name))).content).toBe("while auth was away @user5");
		expect(await about(user5(), memo.name)).toEqual([]);
		// Too young for the repair pass: the request that saved it might still be at work.
		expect(await service.notifyPendingMemos(Date.now())).toBe(0);
		expect(await service.notifyPendingMemos(Date.now() + 2 * 60_000)).toBe(1);
		expect(await about(user5(), memo.name)).toEqual([expect.objectContaining({ type: "MEMO_MENTION", sender: "users/user4" })]);
	});

	test("an archived sender is still named, with their User message (state ARCHIVED), as upstream", async () => {
		const memo = await create(user4(), "before archiving, to @user3");
		const [before] = await about(user3(), memo.name);
		expect(before!.senderUser).toEqual(expect.objectContaining({ name: "users/user4", state: "NORMAL", email: "" }));
		expect((await api.request("PATCH", "/users/user4", { as: admin(), query: { updateMask: "state" }, body: { state: "ARCHIVED" } })).status).toBe(200);
		try {
			const [after] = await about(user3(), memo.name);
			expect(after).toEqual({ ...before, senderUser: { ...before!.senderUser, state: "ARCHIVED", updateTime: expect.any(String) } });
		} finally {
			expect((await api.request("PATCH", "/users/user4", { as: admin(), query: { updateMask: "state" }, body: { state: "NORMAL" } })).status).toBe(200);
		}
	});

	test("DeleteUser takes the notifications the user received and sent", async () => {
		const memo = await create(user5(), "from user5 to @user1");
		expect(await about(user1(), memo.name)).toHaveLength(1);
		await ok(api.request("DELETE", "/users/user5", { as: admin() }));
		expect((await inbox(user1())).filter(n => n.sender === "users/user5" || n.sender === "")).toEqual([]);
		expect(await documentsOf(app().node.broker).collection("memo_notifications").count({ memoId: memo.name.slice("memos/".length) })).toBe(0);
	});
});
