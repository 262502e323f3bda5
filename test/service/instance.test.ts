import { ServiceBroker } from "moleculer";
import { attachmentsActions } from "../../services/attachments/attachments.contract.js";
import { authActions, authEvents, type SetupState } from "../../services/auth/auth.contract.js";
import { instanceActions, instanceEvents } from "../../services/instance/instance.contract.js";
import InstanceService from "../../services/instance/instance.service.js";
import { SETTING_DEFAULTS } from "../../services/instance/setting-defaults.js";
import { memosActions } from "../../services/memos/memos.contract.js";
import { spacesActions } from "../../services/spaces/spaces.contract.js";
import type { Caller } from "../../shared/caller.js";
import { broadcast, call, onEvent } from "../../shared/contract.js";
import { loadConfig } from "../../shared/runtime/config.js";
import { attachResources } from "../../shared/runtime/resources.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { fake, fakeService } from "../support/fake-service.js";
import { rejectionOf } from "../support/service-errors.js";

/**
 * The instance service on a bare broker: the profile, statistics and settings rules through its
 * actions, with typed fakes of what it calls (auth's setup state, identity providers and current
 * user; every owner's `stats`) and a listener of its setting event; the document store in memory.
 */

const admin = { id: "u-admin", username: "admin", role: "ADMIN" } as Caller;
const alice = { id: "u-alice", username: "alice", role: "USER" } as Caller;

let setup: SetupState = { userCount: 0, admin: null };
let identityProviders: unknown[] = [];
let memoStats: Record<string, unknown> = { memoCount: 7 };
/** Each owner's `stats` calls so far. */
let statsCalls = 0;
const settingEvents: (string | undefined)[] = [];

let broker: ServiceBroker;
let documents: SqliteDocumentStore;

const as = (user: Caller | null) => ({ meta: { user } });
const patch = (key: string, setting: Record<string, unknown>, updateMask?: string) =>
	call(broker, instanceActions.updateSetting, { key, setting, ...(updateMask === undefined ? {} : { updateMask }) }, as(admin));

beforeAll(async () => {
	documents = new SqliteDocumentStore({ dir: null });
	broker = new ServiceBroker({ logger: false });
	attachResources(broker, { config: loadConfig({ LOG_LEVEL: "silent", INSTANCE_URL: "https://memos.example" }), documents });
	broker.createService(InstanceService);
	const counted = <T>(answer: () => T) => () => {
		statsCalls++;
		return answer();
	};
	broker.createService(
		fakeService("auth", [
			fake(authActions.setupState, () => setup),
			fake(authActions.listIdentityProviders, () => ({ identityProviders })),
			fake(authActions.getCurrentUser, () => ({ user: { email: "admin@example.com" } })),
			fake(authActions.stats, counted(() => ({ userCount: 2 })))
		])
	);
	broker.createService(fakeService("memos", [fake(memosActions.stats, counted(() => memoStats as { memoCount: number }))]));
	broker.createService(
		fakeService("attachments", [fake(attachmentsActions.stats, counted(() => ({ attachmentCount: 3, attachmentBytes: 4096, localStorageBytes: 4096 })))])
	);
	broker.createService(fakeService("spaces", [fake(spacesActions.stats, counted(() => ({ spaceCount: 1 })))]));
	broker.createService({ name: "listener", events: onEvent(instanceEvents.settingUpdated, ctx => void settingEvents.push(ctx.params.key)) });
	await broker.start();
});

afterAll(async () => {
	await broker.stop();
	await documents.close();
});

async function until(condition: () => boolean): Promise<void> {
	while (!condition()) await new Promise(resolve => setImmediate(resolve));
}

test("the profile: set-up state from auth, dropped on auth.user.changed; the access mode follows its setting (contract 4.10)", async () => {
	const first = await call(broker, instanceActions.getProfile, undefined, as(null));
	expect(first).toMatchObject({ instanceUrl: "https://memos.example", needsSetup: true, accessMode: "INSTANCE_ACCESS_MODE_PRIVATE" });
	expect(first).not.toHaveProperty("admin");
	setup = { userCount: 1, admin: { name: "users/admin" } };
	// Cached until auth says a user changed.
	expect(await call(broker, instanceActions.getProfile, undefined, as(null))).toMatchObject({ needsSetup: true });
	await broadcast(broker, authEvents.userChanged, { id: admin.id });
	await until(() => true);
	expect(await call(broker, instanceActions.getProfile, undefined, as(null))).toMatchObject({ needsSetup: false, admin: { name: "users/admin" } });
	await patch("ACCESS", { accessSetting: { accessMode: "INSTANCE_ACCESS_MODE_PUBLIC" } });
	expect(await call(broker, instanceActions.accessMode)).toBe("INSTANCE_ACCESS_MODE_PUBLIC");
	expect(await call(broker, instanceActions.getProfile, undefined, as(null))).toMatchObject({ accessMode: "INSTANCE_ACCESS_MODE_PUBLIC" });
	await patch("ACCESS", { accessSetting: { accessMode: "INSTANCE_ACCESS_MODE_PRIVATE" } });
	expect(await call(broker, instanceActions.accessMode)).toBe("INSTANCE_ACCESS_MODE_PRIVATE");
});

test("settings: read rights by key, admins change them, every node hears of it (contract 11)", async () => {
	expect(await call(broker, instanceActions.getSetting, { key: "general" }, as(null))).toEqual({ name: "instance/settings/GENERAL", generalSetting: SETTING_DEFAULTS.GENERAL });
	expect((await rejectionOf(call(broker, instanceActions.getSetting, { key: "STORAGE" }, as(null)))).type).toBe("UNAUTHENTICATED");
	expect((await rejectionOf(call(broker, instanceActions.getSetting, { key: "STORAGE" }, as(alice)))).type).toBe("PERMISSION_DENIED");
	expect((await rejectionOf(call(broker, instanceActions.updateSetting, { key: "GENERAL", setting: {} }, as(alice)))).type).toBe("PERMISSION_DENIED");
	const before = settingEvents.length;
	const updated = await patch("MEMO_RELATED", { memoRelatedSetting: { contentLengthLimit: 20000 } }, "content_length_limit");
	expect(updated).toMatchObject({ memoRelatedSetting: { contentLengthLimit: 20000, reactions: SETTING_DEFAULTS.MEMO_RELATED.reactions } });
	await until(() => settingEvents.length > before);
	expect(settingEvents.slice(before)).toEqual(["MEMO_RELATED"]);
	expect(await call(broker, instanceActions.settingValue, { key: "MEMO_RELATED" })).toMatchObject({ contentLengthLimit: 20000 });
	const batch = await call(broker, instanceActions.batchGetSettings, { names: ["instance/settings/TAGS", "instance/settings/MEMO_RELATED"] }, as(null));
	expect((batch.settings as { name: string }[]).map(s => s.name)).toEqual(["instance/settings/TAGS", "instance/settings/MEMO_RELATED"]);
	const mixed = await rejectionOf(call(broker, instanceActions.batchGetSettings, { names: ["instance/settings/GENERAL", "instance/settings/STORAGE"] }, as(alice)));
	expect(mixed.type).toBe("PERMISSION_DENIED");
});

test("password sign-in can be disabled only while an identity provider exists (contract 11.4)", async () => {
	const disable = () => patch("GENERAL", { generalSetting: { disallowPasswordAuth: true } }, "disallow_password_auth");
	expect((await rejectionOf(disable())).type).toBe("FAILED_PRECONDITION");
	identityProviders = [{ name: "identity-providers/github" }];
	expect(await disable()).toMatchObject({ generalSetting: { disallowPasswordAuth: true } });
});

test("statistics: admins only, one call per owner, cached; an owner's bad answer fails the page (contract 4.11)", async () => {
	expect((await rejectionOf(call(broker, instanceActions.getStats, undefined, as(alice)))).type).toBe("PERMISSION_DENIED");
	memoStats = { memoCount: "many" };
	expect((await rejectionOf(call(broker, instanceActions.getStats, undefined, as(admin)))).type).toBe("INTERNAL");
	memoStats = { memoCount: 7 };
	const calls = statsCalls;
	const stats = await call(broker, instanceActions.getStats, undefined, as(admin));
	expect(stats).toMatchObject({ userCount: 2, memoCount: 7, attachmentCount: 3, attachmentBytes: "4096", localStorageBytes: "4096", spaceCount: 1, database: { driver: "nedb" } });
	expect(statsCalls - calls).toBe(4);
	expect(await call(broker, instanceActions.getStats, undefined, as(admin))).toEqual(stats);
	expect(statsCalls - calls).toBe(4);
});

test("the test e-mail is for admins, and needs an SMTP host (contract 11.5)", async () => {
	expect((await rejectionOf(call(broker, instanceActions.testEmailSetting, {}, as(alice)))).type).toBe("PERMISSION_DENIED");
	const noHost = await rejectionOf(call(broker, instanceActions.testEmailSetting, { email: { smtpPort: 25, fromEmail: "a@example.com" } }, as(admin)));
	expect(noHost.type).toBe("INVALID_ARGUMENT");
	expect(noHost.message).toContain("smtpHost");
});
