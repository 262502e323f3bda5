import { jest } from "@jest/globals";
import type { Service, ServiceBroker } from "moleculer";
import { attachmentsActions } from "../../services/attachments/attachments.contract.js";
import { memosActions, type ChangeToCheck } from "../../services/memos/memos.contract.js";
import { spacesActions } from "../../services/spaces/spaces.contract.js";
import type { Caller } from "../../shared/caller.js";
import { call } from "../../shared/contract.js";
import { settingValue } from "../../shared/settings/instance-settings.contract.js";
import { fake, fakeService } from "../support/fake-service.js";
import { memosBroker } from "../support/memos-broker.js";

/**
 * A rolling deploy (contract 17): the memos service is new, the spaces and auth nodes running
 * are older. Without `spaces.membersOfSpaces`, the read check the gateway asks for must still
 * answer, failing closed for the changes of SPACE memos (their creator alone hears them: no
 * membership is known), and say so in the log once, not per change; the gateway's streams stay
 * open. A spaces service that is down altogether still fails the check. Without
 * `auth.userMessages`, notifications are listed with their senders' names and without
 * `senderUser`, with one warning.
 */

const alice: Caller = { id: "u-alice", username: "alice", role: "USER" };
const bob: Caller = { id: "u-bob", username: "bob", role: "USER" };
const time = Date.UTC(2026, 2, 1, 9, 30);
const as = (user: Caller) => ({ meta: { user, requestTime: time } });

let broker: ServiceBroker;
let olderSpaces: Service;

beforeAll(async () => {
	({ broker } = memosBroker([alice, bob]));
	// The spaces service as it was before membersOfSpaces: alice and bob are members of s1.
	olderSpaces = broker.createService(
		fakeService("spaces", [
			fake(spacesActions.membershipsOf, () => [{ spaceId: "s1", role: "MEMBER" as const }]),
			fake(spacesActions.spaceMembers, ctx => ({ exists: true, roles: Object.fromEntries(ctx.params.userIds.map(id => [id, "MEMBER" as const])) }))
		])
	);
	broker.createService(
		fakeService("attachments", [
			fake(attachmentsActions.linkForMemo, () => undefined),
			fake(attachmentsActions.forMemos, () => ({})),
			fake(attachmentsActions.followMemo, () => undefined)
		])
	);
	broker.createService(fakeService("instance", [fake(settingValue, () => ({ contentLengthLimit: 8192 }))]));
	await broker.start();
	await call(broker, memosActions.createMemo, { memoId: "in-space", memo: { content: "for the space", visibility: "SPACE", space: "spaces/s1" } }, as(alice));
	await call(broker, memosActions.createMemo, { memoId: "protected", memo: { content: "for everyone, @bob", visibility: "PROTECTED" } }, as(alice));
});

afterAll(async () => {
	await broker.stop();
});

const change = (memo: string): ChangeToCheck => ({
	event: "memo.updated",
	change: { memo: `memos/${memo}`, creator: "users/u-alice", spaceId: null, actor: "users/u-alice", at: new Date(time).toISOString() }
});

test("without spaces.membersOfSpaces on the running nodes, a SPACE memo's change goes to its creator alone, the others as ever; one warning", async () => {
	const memos = broker.getLocalService("memos") as Service;
	const warn = jest.spyOn(memos.logger, "warn").mockImplementation(() => undefined);
	try {
		for (let i = 0; i < 3; i++) {
			const answer = await call(broker, memosActions.changeReaders, { changes: [change("in-space"), change("protected")], userIds: [alice.id, bob.id] });
			expect(answer).toEqual([
				{ everySignedIn: false, userIds: [alice.id] },
				{ everySignedIn: true, userIds: [] }
			]);
		}
		expect(warn).toHaveBeenCalledTimes(1);
		expect(String(warn.mock.calls[0]![0])).toContain("spaces.membersOfSpaces");
	} finally {
		warn.mockRestore();
	}
});

test("without auth.userMessages on the running nodes, notifications name their senders and leave senderUser out; one warning", async () => {
	const memos = broker.getLocalService("memos") as Service;
	const warn = jest.spyOn(memos.logger, "warn").mockImplementation(() => undefined);
	try {
		for (let i = 0; i < 2; i++) {
			const page = (await call(broker, memosActions.listUserNotifications, { user: "bob" }, as(bob))) as { notifications: Record<string, unknown>[] };
			expect(page.notifications.map(n => [n.sender, n.type, "senderUser" in n])).toEqual([["users/alice", "MEMO_MENTION", false]]);
		}
		expect(warn).toHaveBeenCalledTimes(1);
		expect(String(warn.mock.calls[0]![0])).toContain("auth.userMessages");
	} finally {
		warn.mockRestore();
	}
});

test("with no spaces node at all the check fails, as when any peer it needs is down: the gateway ends its streams rather than guess", async () => {
	await broker.destroyService(olderSpaces);
	await expect(call(broker, memosActions.changeReaders, { changes: [change("in-space")], userIds: [alice.id, bob.id] })).rejects.toMatchObject({ name: "ServiceNotFoundError" });
	// A change naming no SPACE memo needs no membership.
	expect(await call(broker, memosActions.changeReaders, { changes: [change("protected")], userIds: [alice.id] })).toEqual([{ everySignedIn: true, userIds: [] }]);
});
