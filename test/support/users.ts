import { startEmbeddedApp, type EmbeddedApp } from "./embedded-app.js";

/** A User message as the API returns it (contract 4.8). */
export interface ApiUser {
	name: string;
	role: "ADMIN" | "USER";
	username: string;
	email: string;
	displayName: string;
	avatarUrl: string;
	description: string;
	state: "NORMAL" | "ARCHIVED";
	createTime: string;
	updateTime: string;
}

export interface Session {
	accessToken: string;
	/** `memos_refresh=<value>`, ready for a Cookie header. */
	cookie: string;
	user: ApiUser;
}

export const DEFAULT_PASSWORD = "correct horse battery";

export interface SignUpOptions {
	email?: string;
	displayName?: string;
	role?: "ADMIN" | "USER";
	/** An access token to create the user with (an ADMIN's, to choose the role). */
	accessToken?: string;
}

async function failure(res: Response, what: string): Promise<Error> {
	return new Error(`${what} answered ${res.status}: ${await res.text()}`);
}

/** CreateUser over HTTP; throws unless it answers 200. */
export async function signUp(baseUrl: string, username: string, password = DEFAULT_PASSWORD, opts: SignUpOptions = {}): Promise<ApiUser> {
	const headers: Record<string, string> = { "Content-Type": "application/json" };
	if (opts.accessToken) headers.Authorization = `Bearer ${opts.accessToken}`;
	const user: Record<string, unknown> = { username, password };
	if (opts.email !== undefined) user.email = opts.email;
	if (opts.displayName !== undefined) user.displayName = opts.displayName;
	if (opts.role !== undefined) user.role = opts.role;
	// 503 means "retry later" (contract 19), as a client does: in a cluster under load a node can drop out of
	// the gateway's registry for a moment (seen in a fresh-clone CI run at load 15-20, after /readyz said ready).
	// A retry that finds the user made means the answer was lost, not the write.
	const deadline = Date.now() + 60_000;
	for (let attempt = 0; ; attempt++) {
		const res = await fetch(`${baseUrl}/api/v1/users`, { method: "POST", headers, body: JSON.stringify(user) });
		if (res.status === 200) return (await res.json()) as ApiUser;
		if (res.status === 409 && attempt > 0) {
			await res.arrayBuffer();
			return (await signIn(baseUrl, username, password)).user;
		}
		if (res.status !== 503 || Date.now() > deadline) throw await failure(res, `CreateUser ${username}`);
		await res.arrayBuffer();
		await new Promise(resolve => setTimeout(resolve, 500));
	}
}

/** The `memos_refresh=<value>` pair of a response's Set-Cookie, or undefined. */
export function refreshCookieOf(res: Response): string | undefined {
	for (const header of res.headers.getSetCookie()) {
		const pair = header.split(";")[0] ?? "";
		if (pair.startsWith("memos_refresh=")) return pair;
	}
	return undefined;
}

/** SignIn with a password over HTTP; throws unless it answers 200. */
export async function signIn(baseUrl: string, username: string, password = DEFAULT_PASSWORD): Promise<Session> {
	const res = await fetch(`${baseUrl}/api/v1/auth/signin`, {
		method: "POST",
		headers: { "Content-Type": "application/json" },
		body: JSON.stringify({ passwordCredentials: { username, password } })
	});
	if (res.status !== 200) throw await failure(res, `SignIn ${username}`);
	const body = (await res.json()) as { accessToken: string; user: ApiUser };
	const cookie = refreshCookieOf(res);
	if (cookie === undefined) throw new Error(`SignIn ${username} set no refresh cookie`);
	return { accessToken: body.accessToken, cookie, user: body.user };
}

/** `Authorization: Bearer …` for a session (or a bare token), plus JSON content type. */
export function authHeaders(session: Session | string): Record<string, string> {
	const token = typeof session === "string" ? session : session.accessToken;
	return { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
}

export interface Population {
	admin: Session;
	/** Signed-in USERs named `user1`, `user2`, … */
	users: Session[];
}

/** On a fresh instance: `admin` (the first user, so ADMIN) and `count` USERs, all signed in. */
export async function populate(baseUrl: string, count: number, password = DEFAULT_PASSWORD): Promise<Population> {
	await signUp(baseUrl, "admin", password);
	const admin = await signIn(baseUrl, "admin", password);
	const users: Session[] = [];
	for (let i = 1; i <= count; i++) {
		await signUp(baseUrl, `user${i}`, password, { accessToken: admin.accessToken });
		users.push(await signIn(baseUrl, `user${i}`, password));
	}
	return { admin, users };
}

/** A fresh embedded app with `admin` and `count` USERs signed in. */
export async function startPopulatedApp(count: number, env: Record<string, string> = {}): Promise<EmbeddedApp & Population> {
	const app = await startEmbeddedApp(env);
	try {
		return Object.assign(app, await populate(app.baseUrl, count));
	} catch (err) {
		await app.stop();
		throw err;
	}
}
