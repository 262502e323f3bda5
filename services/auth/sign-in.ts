import { invalidArgument, permissionDenied } from "../../shared/errors.js";
import type { AuthDeps } from "./auth-deps.js";
import { PASSWORD_MAX_BYTES, verifyPassword } from "./passwords.js";
import { signInWithSso, type SsoOptions } from "./sso.js";
import type { UserDoc } from "./user-doc.js";

export interface SignInParams {
	passwordCredentials?: unknown;
	ssoCredentials?: unknown;
}

const UNMATCHED = "unmatched username and password";

function credentialsObject(value: unknown, field: string): Record<string, unknown> {
	if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidArgument(`${field} must be an object`);
	return value as Record<string, unknown>;
}

async function signInWithPassword(deps: AuthDeps, credentials: Record<string, unknown>): Promise<UserDoc> {
	const { username, password } = credentials;
	if (typeof username !== "string" || typeof password !== "string") throw invalidArgument("passwordCredentials needs username and password strings");
	if (Buffer.byteLength(password, "utf8") > PASSWORD_MAX_BYTES) throw invalidArgument(UNMATCHED);
	const user = username === "" ? null : await deps.users.findOne({ username: username.trim() });
	// Verified even for an unknown user, so the time taken does not tell which names exist.
	if (!(await verifyPassword(user?.passwordHash, password)) || !user) throw invalidArgument(UNMATCHED);
	if (user.state === "ARCHIVED") throw permissionDenied("user is archived");
	if (user.role !== "ADMIN" && (await deps.general()).disallowPasswordAuth === true) throw permissionDenied("password sign-in is not allowed");
	return user;
}

/** SignIn (contract 2.3): exactly one credential kind; the user who may sign in. */
export async function signIn(deps: AuthDeps, params: SignInParams, sso: SsoOptions): Promise<UserDoc> {
	const hasPassword = params.passwordCredentials !== undefined && params.passwordCredentials !== null;
	const hasSso = params.ssoCredentials !== undefined && params.ssoCredentials !== null;
	if (hasPassword === hasSso) throw invalidArgument("exactly one of passwordCredentials and ssoCredentials is required");
	const user = hasPassword
		? await signInWithPassword(deps, credentialsObject(params.passwordCredentials, "passwordCredentials"))
		: await signInWithSso(deps, credentialsObject(params.ssoCredentials, "ssoCredentials"), sso);
	if (user.state === "ARCHIVED") throw permissionDenied("user is archived");
	return user;
}
