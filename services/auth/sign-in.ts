import { ServiceError, invalidArgument, permissionDenied } from "../../shared/errors.js";
import { fieldOf, optionalMessageOf, type JsonMessage } from "../../shared/request-message.js";
import type { AuthDeps } from "./auth-deps.js";
import { PASSWORD_MAX_BYTES, verifyPassword } from "./passwords.js";
import { lockedForMs, recordFailure, recordSuccess, type AttemptSource } from "./sign-in-attempts.js";
import { signInWithSso, type SsoOptions } from "./sso.js";
import type { UserDoc } from "./user-doc.js";

/** SignIn's body fields, by either name (contract 1.2). */
export type SignInParams = JsonMessage;

const UNMATCHED = "unmatched username and password";

/** RESOURCE_EXHAUSTED of a locked username or address (contract 19), with the seconds for `Retry-After`. */
export class SignInLocked extends ServiceError {
	constructor(readonly retryAfterSeconds: number) {
		super("RESOURCE_EXHAUSTED", "too many failed sign-ins, retry later");
	}
}

async function signInWithPassword(deps: AuthDeps, credentials: JsonMessage, address: string | undefined): Promise<UserDoc> {
	const username = fieldOf(credentials, "username");
	const password = fieldOf(credentials, "password");
	if (typeof username !== "string" || typeof password !== "string") throw invalidArgument("passwordCredentials needs username and password strings");
	const source: AttemptSource = { username: username.trim(), address };
	const lockedMs = await lockedForMs(deps.signInAttempts, source, deps.now());
	// Refused before the password is looked at: a locked account's right password is refused too.
	if (lockedMs > 0) throw new SignInLocked(Math.ceil(lockedMs / 1000));
	const tooLong = Buffer.byteLength(password, "utf8") > PASSWORD_MAX_BYTES;
	const user = source.username === "" || tooLong ? null : await deps.users.findOne({ username: source.username });
	// Verified even for an unknown user, so the time taken does not tell which names exist.
	if (tooLong || !(await verifyPassword(user?.passwordHash, password)) || !user) {
		await recordFailure(deps.signInAttempts, source, deps.now());
		throw invalidArgument(UNMATCHED);
	}
	await recordSuccess(deps.signInAttempts, source.username);
	if (user.state === "ARCHIVED") throw permissionDenied("user is archived");
	if (user.role !== "ADMIN" && (await deps.general()).disallowPasswordAuth === true) throw permissionDenied("password sign-in is not allowed");
	return user;
}

/** SignIn (contract 2.3): exactly one credential kind; the user who may sign in. `address` is the client's, for the throttle. */
export async function signIn(deps: AuthDeps, params: SignInParams, sso: SsoOptions, address: string | undefined): Promise<UserDoc> {
	const passwordCredentials = optionalMessageOf(fieldOf(params, "passwordCredentials"), "passwordCredentials");
	const ssoCredentials = optionalMessageOf(fieldOf(params, "ssoCredentials"), "ssoCredentials");
	let user: UserDoc;
	if (passwordCredentials !== undefined && ssoCredentials === undefined) user = await signInWithPassword(deps, passwordCredentials, address);
	else if (ssoCredentials !== undefined && passwordCredentials === undefined) user = await signInWithSso(deps, ssoCredentials, sso);
	else throw invalidArgument("exactly one of passwordCredentials and ssoCredentials is required");
	if (user.state === "ARCHIVED") throw permissionDenied("user is archived");
	return user;
}
