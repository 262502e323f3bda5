import { ok } from "../support/list-fixture.js";
import { usePopulatedApp } from "../support/populated-app.js";
import { waitFor } from "../support/processes.js";
import { openSse, type SseStream } from "../support/sse-client.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

/**
 * SetMemoRelations and SetMemoAttachments change a memo (its update time moves): each is a
 * memo.updated change (contract 17), heard on the live stream and delivered to the creator's
 * webhooks with the memo as it now is, as upstream's dispatchMemoUpdatedSideEffects does after both.
 */

const { app, api, users: [alice, bob] } = usePopulatedApp(2, { LINK_METADATA_ALLOW_PRIVATE_NETWORKS: "true" });

let receiver: Receiver;
let stream: SseStream;

beforeAll(async () => {
	receiver = await startReceiver();
	stream = await openSse(app().baseUrl, bob().accessToken);
});
afterAll(async () => {
	stream.close();
	await receiver.close();
});

test("relations and attachments set on a memo are memo.updated on the live stream and at the creator's webhooks", async () => {
	const hook = await ok(api.request<{ name: string }>("POST", "/users/user1/webhooks", { as: alice(), body: { url: receiver.url } }));
	receiver.secret = (await ok(api.request<{ signingSecret: string }>("GET", `/${hook.name}:getSigningSecret`, { as: alice() }))).signingSecret;
	const other = await ok(api.create(alice(), { content: "related", visibility: "PROTECTED" }));
	const memo = await ok(api.create(alice(), { content: "with sides", visibility: "PROTECTED" }));
	const attachment = await ok(api.request<{ name: string }>("POST", "/attachments", { as: alice(), body: { filename: "a.txt", content: "aGVsbG8=" } }));

	await ok(api.request("PATCH", `/${memo.name}/relations`, { as: alice(), body: { relations: [{ relatedMemo: { name: other.name }, type: "REFERENCE" }] } }));
	await ok(api.request("PATCH", `/${memo.name}/attachments`, { as: alice(), body: { attachments: [{ name: attachment.name }] } }));

	const updates = () => stream.events.filter(e => e.name === memo.name && e.type === "memo.updated");
	await stream.until("two memo.updated events", () => updates().length >= 2);
	expect(stream.events.filter(e => e.name === memo.name)).toEqual([
		{ type: "memo.created", name: memo.name },
		{ type: "memo.updated", name: memo.name },
		{ type: "memo.updated", name: memo.name }
	]);

	const ofMemo = () => receiver.delivered().filter(r => r.body.memo.name === memo.name);
	await waitFor("three deliveries of the memo", async () => (ofMemo().length >= 3 ? true : undefined), 60000);
	// The memo as upstream's Go server marshals it: snake_case keys, empty lists left out.
	type Sides = { relations?: { related_memo: { name: string } }[]; attachments?: { name: string }[] };
	const sides = ofMemo().map(r => {
		const { relations = [], attachments = [] } = r.body.memo as unknown as Sides;
		return [r.body.activityType, relations.map(rel => rel.related_memo.name), attachments.map(a => a.name)];
	});
	expect(sides).toEqual([
		["memos.memo.created", [], []],
		["memos.memo.updated", [other.name], []],
		["memos.memo.updated", [other.name], [attachment.name]]
	]);
	expect(ofMemo().every(r => r.verified)).toBe(true);
});
