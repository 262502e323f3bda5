import type { ServiceBroker } from "moleculer";
import { attachmentsActions } from "../../services/attachments/attachments.contract.js";
import { memosActions } from "../../services/memos/memos.contract.js";
import { spacesActions } from "../../services/spaces/spaces.contract.js";
import type { Caller } from "../../shared/caller.js";
import { call } from "../../shared/contract.js";
import { settingValue } from "../../shared/settings/instance-settings.contract.js";
import type { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { fake, fakeService } from "../support/fake-service.js";
import { memosBroker } from "../support/memos-broker.js";
import { waitFor } from "../support/processes.js";

/**
 * The ListMemos response cache keeps responses only while auth, spaces and attachments are in
 * the memos service's process (they read the store its change token covers). Which services are
 * local is followed through Moleculer's `$services.changed`: a kept response is the very
 * deep-frozen object the cache holds, a computed one is not frozen.
 */

const alice: Caller = { id: "u-alice", username: "alice", role: "USER" } as Caller;

let broker: ServiceBroker;
let documents: SqliteDocumentStore;

const attachments = () => fakeService("attachments", [fake(attachmentsActions.forMemos, () => ({}))]);

const listed = () => call(broker, memosActions.listMemos, { pageSize: "10" }, { meta: { user: alice, requestTime: Date.now() } });

/** Whether the list now comes from the cache: asked twice, the second answer is the kept (frozen) first. */
async function cached(): Promise<boolean> {
	const first = await listed();
	const second = await listed();
	return Object.isFrozen(second) && second === first;
}

beforeAll(async () => {
	({ broker, documents } = memosBroker([alice]));
	broker.createService(fakeService("spaces", [fake(spacesActions.membershipsOf, () => [])]));
	broker.createService(attachments());
	broker.createService(fakeService("instance", [fake(settingValue, () => ({ contentLengthLimit: 8192 }))]));
	// No memos: a list of none asks attachments nothing, so it answers while that service is gone.
	await broker.start();
});

afterAll(async () => {
	await broker.stop();
	await documents.close();
});

test("responses are kept while every peer is local, not while one is missing, and again once it is back", async () => {
	expect(await cached()).toBe(true);
	await broker.destroyService("attachments");
	expect(await cached()).toBe(false);
	broker.createService(attachments());
	await waitFor("the list cache to follow the attachments service back", async () => ((await cached()) ? true : undefined), 10_000);
});
