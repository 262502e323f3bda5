import { ServiceBroker } from "moleculer";
import { authActions } from "../../services/auth/auth.contract.js";
import MemosService from "../../services/memos/memos.service.js";
import type { Caller } from "../../shared/caller.js";
import { loadConfig } from "../../shared/runtime/config.js";
import { attachResources } from "../../shared/runtime/resources.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { fake, fakeService } from "./fake-service.js";

/**
 * The memos service on a bare broker for the service tier (test/service): SQLite in memory and a
 * fake auth service that knows `users` (new memos PRIVATE by default) and takes every memo change
 * for webhooks (memo-outbox.ts; test/service/memo-outbox.test.ts checks them). The test adds the fakes of
 * the other services it calls, then starts the broker.
 */
export function memosBroker(users: readonly Caller[]): { broker: ServiceBroker; documents: SqliteDocumentStore } {
	const documents = new SqliteDocumentStore({ dir: null });
	const broker = new ServiceBroker({ logger: false });
	attachResources(broker, { config: loadConfig({ LOG_LEVEL: "silent" }), documents });
	broker.createService(MemosService);
	broker.createService(
		fakeService("auth", [
			fake(authActions.lookupUsers, ctx => {
				const { ids = [], usernames = [] } = ctx.params;
				return users.filter(u => ids.includes(u.id) || usernames.includes(u.username)).map(u => ({ id: u.id, username: u.username, role: u.role, state: "NORMAL" as const }));
			}),
			fake(authActions.defaultMemoVisibility, () => "PRIVATE" as const),
			fake(authActions.recordMemoChanges, ctx => ({ recorded: ctx.params.changes.length }))
		])
	);
	return { broker, documents };
}
