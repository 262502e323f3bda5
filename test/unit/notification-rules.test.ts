import type { UserRef } from "../../services/auth/auth.contract.js";
import { mentionedUsernames } from "../../services/memos/content/mentions.js";
import { candidateIds, planNotifications } from "../../services/memos/notifications/plan-notifications.js";
import { mayNotify } from "../../services/memos/notifications/notify-memo.js";
import { memoDoc } from "../support/memo-doc.js";

describe("mentions (contract 17, upstream's mention parser)", () => {
	const cases: [string, string, string[]][] = [
		["one mention", "hi @alice", ["alice"]],
		["several, in first-appearance order, once each", "@bob and @alice, then @bob again", ["bob", "alice"]],
		["at the start, after punctuation or brackets", "@a (@b) [@c] x,@d", ["a", "b", "c", "d"]],
		["case is kept: usernames are case-sensitive", "@Alice @alice", ["Alice", "alice"]],
		["ends at punctuation", "@alice. @bob's @carol!", ["alice", "bob", "carol"]],
		["hyphens belong to the name", "@mary-jane", ["mary-jane"]],
		["not after a letter or digit (e-mail addresses)", "me@alice x1@bob", []],
		["an address autolinked is a link", "write to alice@example.com", []],
		["not a valid username: a trailing hyphen, too long, other letters", "@bob- @" + "a".repeat(37) + " @josé", []],
		["a lone @ is nothing", "@ @@", []],
		["escaped", "\\@alice", []],
		["not in inline code, fenced code or links", "`@a` [@b](https://example.com) \n\n```\n@c\n```\n@d", ["d"]],
		["in emphasis, lists, quotes and tables", "*@a* \n\n- @b\n\n> @c\n\n| h |\n|---|\n| @d |", ["a", "b", "c", "d"]]
	];
	test.each(cases)("%s", (_, content, expected) => {
		expect(mentionedUsernames(content)).toEqual(expected);
	});

	test("a save may notify when it is a comment or mentions someone", () => {
		expect(mayNotify("plain", null)).toBe(false);
		expect(mayNotify("plain", "parent")).toBe(true);
		expect(mayNotify("for @bob", null)).toBe(true);
		expect(mayNotify("`@bob`", null)).toBe(false);
	});
});

describe("who a saved memo notifies (contract 17)", () => {
	const user = (id: string, state: UserRef["state"] = "NORMAL"): UserRef => ({ id, username: id, role: "USER", state });
	const none = new Set<string>();

	test("mentions: readable memos notify active users other than the author", () => {
		const memo = memoDoc({ _id: "m", creatorId: "author", visibility: "PROTECTED" });
		const mentioned = [user("bob"), user("author"), user("gone", "ARCHIVED")];
		expect(planNotifications({ memo, parent: null, mentioned, spaceMemberIds: none })).toEqual([{ recipientId: "bob", type: "MEMO_MENTION", memoId: "m", relatedMemoId: null }]);
	});

	test("mentions: nobody reads a PRIVATE, ARCHIVED or deleted memo but its author; a SPACE memo only its members", () => {
		const mentioned = [user("bob"), user("carol")];
		for (const memo of [memoDoc({ visibility: "PRIVATE" }), memoDoc({ visibility: "PUBLIC", state: "ARCHIVED" }), memoDoc({ visibility: "PUBLIC", deleteTime: 1 })]) {
			expect(planNotifications({ memo, parent: null, mentioned, spaceMemberIds: none })).toEqual([]);
		}
		const spaceMemo = memoDoc({ visibility: "SPACE", spaceId: "s" });
		expect(planNotifications({ memo: spaceMemo, parent: null, mentioned, spaceMemberIds: new Set(["carol"]) }).map(n => n.recipientId)).toEqual(["carol"]);
	});

	test("comments: the commented memo's creator, when they can read the comment, and not again for a mention", () => {
		const parent = memoDoc({ _id: "p", creatorId: "owner", visibility: "PUBLIC" });
		const reply = memoDoc({ _id: "c", creatorId: "bob", parentId: "p", visibility: "PUBLIC" });
		expect(planNotifications({ memo: reply, parent, mentioned: [user("owner"), user("carol")], spaceMemberIds: none })).toEqual([
			{ recipientId: "owner", type: "MEMO_COMMENT", memoId: "c", relatedMemoId: "p" },
			{ recipientId: "carol", type: "MEMO_MENTION", memoId: "c", relatedMemoId: "p" }
		]);
		expect(planNotifications({ memo: { ...reply, visibility: "PRIVATE" }, parent, mentioned: [], spaceMemberIds: none })).toEqual([]);
		expect(planNotifications({ memo: { ...reply, creatorId: "owner" }, parent, mentioned: [], spaceMemberIds: none })).toEqual([]);
		const spaceReply = { ...reply, visibility: "SPACE" as const, spaceId: "s" };
		expect(planNotifications({ memo: spaceReply, parent, mentioned: [], spaceMemberIds: none })).toEqual([]);
		expect(planNotifications({ memo: spaceReply, parent, mentioned: [], spaceMemberIds: new Set(["owner"]) })).toHaveLength(1);
		expect(candidateIds(spaceReply, parent, [user("carol"), user("bob")])).toEqual(["carol", "owner"]);
	});
});
