import { invalidArgument, permissionDenied } from "../../shared/errors.js";
import { fieldOf, optionalMessageOf, type JsonMessage } from "../../shared/request-message.js";
import type { AuthDeps } from "./auth-deps.js";
import { PASSWORD_MAX_BYTES, verifyPassword } from "./passwords.js";
import { signInWithSso, type SsoOptions } from "./sso.js";
import type { UserDoc } from "./user-doc.js";

/** SignIn's body fields, by either name (contract 1.2). */
export type SignInParams = JsonMessage;

const UNMATCHED = "unmatched username and password";

async function signInWithPassword(deps: AuthDeps, credentials: JsonMessage): Promise<UserDoc> {
	const username = fieldOf(credentials, "username");
	const password = fieldOf(credentials, "password");
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
	const passwordCredentials = optionalMessageOf(fieldOf(params, "passwordCredentials"), "passwordCredentials");
	const ssoCredentials = optionalMessageOf(fieldOf(params, "ssoCredentials"), "ssoCredentials");
	let user: UserDoc;
	if (passwordCredentials !== undefined && ssoCredentials === undefined) user = await signInWithPassword(deps, passwordCredentials);
	else if (ssoCredentials !== undefined && passwordCredentials === undefined) user = await signInWithSso(deps, ssoCredentials, sso);
	else throw invalidArgument("exactly one of passwordCredentials and ssoCredentials is required");
	if (user.state === "ARCHIVED") throw permissionDenied("user is archived");
	return user;
}
