import { Context, ServiceBroker } from "moleculer";
import { attachmentsActions } from "../../services/attachments/attachments.contract.js";
import { authActions, authEvents } from "../../services/auth/auth.contract.js";
import AuthService from "../../services/auth/auth.service.js";
import { memosActions } from "../../services/memos/memos.contract.js";
import { spacesActions } from "../../services/spaces/spaces.contract.js";
import type { Caller } from "../../shared/caller.js";
import { broadcast, call, onEvent } from "../../shared/contract.js";
import type { CookieMeta } from "../../shared/refresh-cookie.js";
import { loadConfig } from "../../shared/runtime/config.js";
import { attachResources } from "../../shared/runtime/resources.js";
import { settingUpdated, settingValue } from "../../shared/settings/instance-settings.contract.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { fake, fakeService } from "../support/fake-service.js";
import { rejectionOf } from "../support/service-errors.js";

/**
 * The auth service on a bare broker: users, sessions and DeleteUser's clean-up through its
 * actions, with typed fakes of what it calls (the GENERAL instance setting; each owner's
 * `deleteUserData`) and a listener of its user event; the document store in memory.
 */

let general: Record<string, unknown> = {};
/** `<service>.deleteUserData` calls, as `service:userId`. */
const cleanUps: string[] = [];
const changedUsers: string[] = [];

let broker: ServiceBroker;
let documents: SqliteDocumentStore;

/** A request context: what the gateway would hand over, and the meta the action sets (cookies). */
function request(meta: CookieMeta = {}): Context<unknown, CookieMeta> {
	// A root context, as the gateway's are: no endpoint.
	return Context.create(broker, null as never, {}, { meta }) as Context<unknown, CookieMeta>;
}
const as = (user: Caller | null) => request({ user });
/** The `memos_refresh` value a Set-Cookie header sets. */
const refreshCookieOf = (ctx: Context<unknown, CookieMeta>) => /memos_refresh=([^;]*)/.exec(ctx.meta.$responseHeaders?.["Set-Cookie"] ?? "")?.[1] ?? "";

async function idOf(username: string): Promise<string> {
	const [user] = await call(broker, authActions.lookupUsers, { usernames: [username] });
	if (user === undefined) throw new Error(`no user ${username}`);
	return user.id;
}
const rootCaller = async () => ({ id: await idOf("root"), username: "root", role: "ADMIN" }) as Caller;

async function signIn(username: string, password: string): Promise<{ accessToken: string; cookie: string }> {
	const ctx = request();
	const answer = await call(ctx, authActions.signIn, { passwordCredentials: { username, password } });
	return { accessToken: answer.accessToken as string, cookie: refreshCookieOf(ctx) };
}

beforeAll(async () => {
	documents = new SqliteDocumentStore({ dir: null });
	broker = new ServiceBroker({ logger: false });
	attachResources(broker, { config: loadConfig({ LOG_LEVEL: "silent", JWT_SECRET: "auth-service-test-secret-0123456789abcdef" }), documents });
	broker.createService(AuthService);
	broker.createService(fakeService("instance", [fake(settingValue, () => general)]));
	for (const [name, ref] of [["spaces", spacesActions.deleteUserData], ["memos", memosActions.deleteUserData], ["attachments", attachmentsActions.deleteUserData]] as const) {
		broker.createService(fakeService(name, [fake(ref, ctx => void cleanUps.push(`${name}:${ctx.params.userId}`))]));
	}
	broker.createService({ name: "listener", events: onEvent(authEvents.userChanged, ctx => void changedUsers.push(ctx.params.id)) });
	await broker.start();
});

afterAll(async () => {
	await broker.stop();
	await documents.close();
});

/** The GENERAL setting changes, and the instance service says so (the settings cache drops it). */
async function settingChanged(value: Record<string, unknown>): Promise<void> {
	general = value;
	await broadcast(broker, settingUpdated, { key: "GENERAL" });
}

async function until(condition: () => boolean): Promise<void> {
	while (!condition()) await new Promise(resolve => setImmediate(resolve));
}

test("the first user becomes ADMIN; closed registration refuses others but not admins (contract 2.4)", async () => {
	const first = await call(as(null), authActions.createUser, { user: { username: "root", password: "root-password-1", role: "USER" } });
	expect(first).toMatchObject({ name: "users/root", role: "ADMIN" });
	const second = await call(as(null), authActions.createUser, { user: { username: "alice", password: "alice-password-1", role: "ADMIN" } });
	expect(second).toMatchObject({ name: "users/alice", role: "USER" });
	await settingChanged({ disallowUserRegistration: true });
	expect((await rejectionOf(call(as(null), authActions.createUser, { user: { username: "bob", password: "bob-password-1" } }))).type).toBe("PERMISSION_DENIED");
	expect(await call(as(await rootCaller()), authActions.createUser, { user: { username: "bob", password: "bob-password-1" } })).toMatchObject({ name: "users/bob" });
	await settingChanged({});
	expect(await call(broker, authActions.setupState)).toMatchObject({ userCount: 3, admin: { name: "users/root" } });
	expect((await call(broker, authActions.lookupUsers, { usernames: ["alice", "nobody"] })).map(u => u.username)).toEqual(["alice"]);
});

test("a session: the access token names the caller, the refresh cookie rotates once (contract 2.1, 2.3)", async () => {
	expect((await rejectionOf(signIn("alice", "wrong-password"))).type).toBe("INVALID_ARGUMENT");
	const session = await signIn("alice", "alice-password-1");
	expect(await call(broker, authActions.verifyAccessToken, { token: session.accessToken })).toMatchObject({ username: "alice", role: "USER" });
	expect(await call(broker, authActions.callerOfRefreshCookie, { cookie: session.cookie })).toMatchObject({ username: "alice" });
	const refreshing = request({ refreshCookie: session.cookie });
	const refreshed = await call(refreshing, authActions.refreshToken, {});
	expect(await call(broker, authActions.verifyAccessToken, { token: refreshed.accessToken as string })).toMatchObject({ username: "alice" });
	expect(refreshCookieOf(refreshing)).not.toBe(session.cookie);
	expect((await rejectionOf(call(request({ refreshCookie: session.cookie }), authActions.refreshToken, {}))).type).toBe("UNAUTHENTICATED");
	expect((await rejectionOf(call(broker, authActions.verifyAccessToken, { token: "not-a-token" }))).type).toBe("UNAUTHENTICATED");
});

test("a changed role takes effect on the next verification and is announced (contract 2.1)", async () => {
	const session = await signIn("bob", "bob-password-1");
	expect(await call(broker, authActions.verifyAccessToken, { token: session.accessToken })).toMatchObject({ role: "USER" });
	const bob = await idOf("bob");
	await call(as(await rootCaller()), authActions.updateUser, { user: "bob", updateMask: "role", patch: { role: "ADMIN" } });
	await until(() => changedUsers.includes(bob));
	expect(await call(broker, authActions.verifyAccessToken, { token: session.accessToken })).toMatchObject({ role: "ADMIN" });
});

test("DeleteUser cleans up in every owning service first, and refuses while one is down (contract 2.4)", async () => {
	const alice = await idOf("alice");
	const root = await rootCaller();
	const spaces = broker.getLocalService("spaces");
	await broker.destroyService(spaces);
	expect((await rejectionOf(call(as(root), authActions.deleteUser, { user: "alice" }))).type).toBe("UNAVAILABLE");
	expect(await call(broker, authActions.lookupUsers, { usernames: ["alice"] })).toHaveLength(1);
	broker.createService(fakeService("spaces", [fake(spacesActions.deleteUserData, ctx => void cleanUps.push(`spaces:${ctx.params.userId}`))]));
	await broker.waitForServices(["spaces"]);
	await call(as(root), authActions.deleteUser, { user: "alice" });
	expect(cleanUps.filter(entry => entry.endsWith(`:${alice}`)).sort()).toEqual([`attachments:${alice}`, `memos:${alice}`, `spaces:${alice}`]);
	expect(await call(broker, authActions.lookupUsers, { usernames: ["alice"] })).toEqual([]);
});
