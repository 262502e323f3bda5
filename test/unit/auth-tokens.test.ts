import { SignJWT, UnsecuredJWT } from "jose";
import { ConfigError, loadConfig } from "../../shared/runtime/config.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";
import { issueAccessToken, verifiedTokensCache, verifyAccessToken as verifyWith } from "../../services/auth/access-token.js";
import { clearRefreshCookie, isSecureRequest, readRefreshCookie, setRefreshCookie } from "../../shared/refresh-cookie.js";
import { REFRESH_TOKENS, REUSE_GRACE_MS, familyOf, revokeUserFamilies, rotate, startFamily, type RefreshTokenDoc } from "../../services/auth/refresh-tokens.js";
import { SECRETS, loadSigningKey, type SecretDoc } from "../../services/auth/token-secret.js";

const key = new TextEncoder().encode("k".repeat(32));
const caller = { id: "u1", username: "alice", role: "USER" as const };
const T0 = Date.UTC(2025, 2, 1, 9, 30);
/** Each check with a cache of its own, as a service with another key would have. */
const verifyAccessToken = (signingKey: Uint8Array, token: string, now: number) => verifyWith(signingKey, token, now, verifiedTokensCache(() => now));

describe("access tokens", () => {
	test("verify to their subject and session until they expire after 15 minutes", async () => {
		const { token, expiresAt } = await issueAccessToken(key, caller, "family-1", T0);
		expect(expiresAt).toBe(T0 + 15 * 60_000);
		expect(await verifyAccessToken(key, token, T0 + 14 * 60_000)).toEqual({ userId: "u1", sessionId: "family-1" });
		expect(await verifyAccessToken(key, token, expiresAt + 1000)).toBeNull();
	});

	test("a token verified once is answered from the cache, and refused there once it has expired", async () => {
		const { token, expiresAt } = await issueAccessToken(key, caller, "family-1", T0);
		let clock = T0;
		const verified = verifiedTokensCache(() => clock);
		expect(await verifyWith(key, token, T0, verified)).toEqual({ userId: "u1", sessionId: "family-1" });
		expect(verified.size).toBe(1);
		expect(await verifyWith(key, token, T0 + 14 * 60_000, verified)).toEqual({ userId: "u1", sessionId: "family-1" });
		expect(await verifyWith(key, token, expiresAt, verified)).toBeNull();
		clock = expiresAt;
		expect(await verifyWith(key, token, expiresAt, verified)).toBeNull();
		expect(await verifyWith(key, "x".repeat(50), T0, verified)).toBeNull();
		expect(verified.size).toBe(0);
	});

	test("refuse other keys, alg none, other audiences and other types", async () => {
		const { token } = await issueAccessToken(key, caller, "family-1", T0);
		expect(await verifyAccessToken(new TextEncoder().encode("x".repeat(32)), token, T0)).toBeNull();
		const claims = { type: "access", username: "alice", role: "ADMIN", sid: "family-1" };
		const unsecured = new UnsecuredJWT(claims).setIssuer("memos").setAudience("user.access-token").setSubject("u1").setIssuedAt(T0 / 1000).setExpirationTime(T0 / 1000 + 900).encode();
		expect(await verifyAccessToken(key, unsecured, T0)).toBeNull();
		const sign = (aud: string, type: string) =>
			new SignJWT({ ...claims, type }).setProtectedHeader({ alg: "HS256" }).setIssuer("memos").setAudience(aud).setSubject("u1").setIssuedAt(T0 / 1000).setExpirationTime(T0 / 1000 + 900).sign(key);
		expect(await verifyAccessToken(key, await sign("user.access-token", "access"), T0)).toEqual({ userId: "u1", sessionId: "family-1" });
		expect(await verifyAccessToken(key, await sign("other", "access"), T0)).toBeNull();
		expect(await verifyAccessToken(key, await sign("user.access-token", "refresh"), T0)).toBeNull();
		expect(await verifyAccessToken(key, "x".repeat(5000), T0)).toBeNull();
		// A token bound to no session could never be revoked: refused.
		const { sid: _sid, ...unbound } = claims;
		const sessionless = await new SignJWT(unbound).setProtectedHeader({ alg: "HS256" }).setIssuer("memos").setAudience("user.access-token").setSubject("u1").setIssuedAt(T0 / 1000).setExpirationTime(T0 / 1000 + 900).sign(key);
		expect(await verifyAccessToken(key, sessionless, T0)).toBeNull();
	});

	test("the generated secret is made once and shared by every loader", async () => {
		const secrets = new SqliteDocumentStore({ dir: null }).collection<SecretDoc>(SECRETS);
		const keys = await Promise.all([loadSigningKey("", secrets), loadSigningKey("", secrets), loadSigningKey("", secrets)]);
		expect(Buffer.from(keys[1] as Uint8Array).equals(Buffer.from(keys[0] as Uint8Array))).toBe(true);
		expect(Buffer.from(keys[2] as Uint8Array).equals(Buffer.from(keys[0] as Uint8Array))).toBe(true);
		expect(keys[0]?.byteLength).toBe(32);
		expect(new TextDecoder().decode(await loadSigningKey("configured-secret-of-32-bytes!!!", secrets))).toBe("configured-secret-of-32-bytes!!!");
	});
});

test("JWT_SECRET: empty (generated) or at least 32 bytes", () => {
	expect(loadConfig({}).jwtSecret).toBe("");
	expect(loadConfig({ JWT_SECRET: "s".repeat(32) }).jwtSecret).toBe("s".repeat(32));
	expect(() => loadConfig({ JWT_SECRET: "short" })).toThrow(ConfigError);
	expect(() => loadConfig({ JWT_SECRET: "short" })).not.toThrow(/short/);
});

describe("refresh cookie", () => {
	test("is read from a Cookie header among others, quotes removed", () => {
		expect(readRefreshCookie("a=1; memos_refresh=abc; b=2")).toBe("abc");
		expect(readRefreshCookie('memos_refresh="abc"')).toBe("abc");
		expect(readRefreshCookie("memos_refresh_old=abc")).toBeUndefined();
		expect(readRefreshCookie(undefined)).toBeUndefined();
	});

	test("attributes of contract 2.1", () => {
		expect(setRefreshCookie("v", T0 + 30 * 86_400_000, T0, false)).toBe("memos_refresh=v; Path=/; HttpOnly; SameSite=Lax; Expires=Mon, 31 Mar 2025 09:30:00 GMT; Max-Age=2592000");
		expect(clearRefreshCookie(true)).toBe("memos_refresh=; Path=/; HttpOnly; SameSite=Lax; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Secure");
	});

	test("TLS is detected from the proxy's headers", () => {
		expect(isSecureRequest({ "x-forwarded-proto": "https" })).toBe(true);
		expect(isSecureRequest({ "x-forwarded-proto": "HTTPS, http" })).toBe(true);
		expect(isSecureRequest({ forwarded: 'for=1.2.3.4;proto="https"' })).toBe(true);
		expect(isSecureRequest({ origin: "https://memos.example.com" })).toBe(true);
		expect(isSecureRequest({ "x-forwarded-proto": "http", origin: "http://x" })).toBe(false);
		expect(isSecureRequest({})).toBe(false);
	});
});

describe("refresh token families", () => {
	const tokens = () => new SqliteDocumentStore({ dir: null }).collection<RefreshTokenDoc>(REFRESH_TOKENS);

	test("each token is usable once; a reuse after the grace revokes the family", async () => {
		const col = tokens();
		const first = await startFamily(col, "u1", T0);
		const second = await rotate(col, first.token, T0 + 1000);
		expect(second.kind).toBe("rotated");
		if (second.kind !== "rotated") return;
		expect(second.next.familyId).toBe(first.familyId);
		expect(await rotate(col, first.token, T0 + 1000 + REUSE_GRACE_MS)).toEqual({ kind: "grace" });
		expect(await rotate(col, first.token, T0 + 1001 + REUSE_GRACE_MS)).toEqual({ kind: "invalid", revokedFamilyId: first.familyId });
		expect(await rotate(col, second.next.token, T0 + 2000 + REUSE_GRACE_MS)).toEqual({ kind: "invalid" });
	});

	test("of two concurrent rotations of one token exactly one wins", async () => {
		const col = tokens();
		const first = await startFamily(col, "u1", T0);
		const results = await Promise.all([rotate(col, first.token, T0), rotate(col, first.token, T0)]);
		expect(results.map(r => r.kind).sort()).toEqual(["grace", "rotated"]);
	});

	test("only hashes are stored", async () => {
		const col = tokens();
		const { token } = await startFamily(col, "u1", T0);
		const docs = await col.find({});
		expect(JSON.stringify(docs)).not.toContain(token);
	});

	test("a password change keeps the family it was made from", async () => {
		const col = tokens();
		const keep = await startFamily(col, "u1", T0);
		const other = await startFamily(col, "u1", T0);
		const stranger = await startFamily(col, "u2", T0);
		expect(await revokeUserFamilies(col, "u1", await familyOf(col, keep.token))).toEqual([other.familyId]);
		expect((await rotate(col, keep.token, T0)).kind).toBe("rotated");
		expect((await rotate(col, other.token, T0)).kind).toBe("invalid");
		expect((await rotate(col, stranger.token, T0)).kind).toBe("rotated");
	});
});
