import { ok } from "../support/list-fixture.js";
import { usePopulatedApp } from "../support/populated-app.js";

/**
 * Notifications in upstream v0.30.0's shapes (proto/api/v1/user_service.proto, fields in proto3
 * JSON names; paths and verbs of its google.api.http annotations): what the server answers, and
 * what the OpenAPI document says of it.
 */

const { app, api, users: [alice, bob] } = usePopulatedApp(2);

const USER_NOTIFICATION = ["name", "sender", "senderUser", "status", "createTime", "type", "memoComment", "memoMention"];
const PAYLOAD = ["memo", "relatedMemo", "memoSnippet", "relatedMemoSnippet"];
const STATUS = ["STATUS_UNSPECIFIED", "UNREAD", "ARCHIVED"];
const TYPE = ["TYPE_UNSPECIFIED", "MEMO_COMMENT", "MEMO_MENTION"];

type SchemaDoc = { properties: Record<string, { enum?: string[]; $ref?: string }> };
type Doc = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, SchemaDoc> } };

test("answers hold upstream's fields only, with its enum spellings and paging fields", async () => {
	const memo = await ok(api.create(alice(), { content: "for @user2", visibility: "PUBLIC" }));
	await ok(api.request("POST", `/${memo.name}/comments`, { as: bob(), body: { content: "a reply", visibility: "PUBLIC" } }));
	const aliceInbox = await ok(api.request<Record<string, unknown>>("GET", "/users/user1/notifications", { as: alice() }));
	const bobInbox = await ok(api.request<Record<string, unknown>>("GET", "/users/user2/notifications", { as: bob() }));
	for (const page of [aliceInbox, bobInbox]) expect(Object.keys(page).sort()).toEqual(["nextPageToken", "notifications"]);
	const [comment] = aliceInbox.notifications as Record<string, unknown>[];
	const [mention] = bobInbox.notifications as Record<string, unknown>[];
	expect(Object.keys(comment!).sort()).toEqual(["createTime", "memoComment", "name", "sender", "senderUser", "status", "type"]);
	expect(Object.keys(mention!).sort()).toEqual(["createTime", "memoMention", "name", "sender", "senderUser", "status", "type"]);
	for (const payload of [comment!.memoComment, mention!.memoMention]) expect(Object.keys(payload as object).sort()).toEqual([...PAYLOAD].sort());
	expect([comment!.type, comment!.status, mention!.type]).toEqual(["MEMO_COMMENT", "UNREAD", "MEMO_MENTION"]);
	const updated = await ok(api.request<Record<string, unknown>>("PATCH", `/${mention!.name as string}`, { as: bob(), query: { updateMask: "status" }, body: { status: "ARCHIVED" } }));
	expect(Object.keys(updated).sort()).toEqual(Object.keys(mention!).sort());
});

test("the OpenAPI document describes the operations under upstream's paths and verbs, with upstream's fields", async () => {
	const doc = (await (await fetch(`${app().baseUrl}/openapi.json`)).json()) as Doc;
	expect(Object.keys(doc.paths["/api/v1/users/{user}/notifications"]!)).toEqual(["get"]);
	expect(Object.keys(doc.paths["/api/v1/users/{user}/notifications/{notification}"]!).sort()).toEqual(["delete", "patch"]);
	const schemas = doc.components.schemas;
	expect(Object.keys(schemas.UserNotification!.properties).sort()).toEqual([...USER_NOTIFICATION].sort());
	expect(schemas.UserNotification!.properties.status!.enum).toEqual(STATUS);
	expect(schemas.UserNotification!.properties.type!.enum).toEqual(TYPE);
	const payload = schemas.UserNotification!.properties.memoComment!.$ref!.split("/").at(-1)!;
	expect(schemas.UserNotification!.properties.memoMention!.$ref).toBe(schemas.UserNotification!.properties.memoComment!.$ref);
	expect(Object.keys(schemas[payload]!.properties).sort()).toEqual([...PAYLOAD].sort());
	expect(Object.keys(schemas.ListUserNotificationsResponse!.properties).sort()).toEqual(["nextPageToken", "notifications"]);
});
