import { startAuthReplicas, type AuthReplicas } from "../support/auth-replicas.js";
import { describeCluster } from "../support/cluster.js";
import { authHeaders, signIn, signUp, type Session } from "../support/users.js";

/** Contract 19, "Revocation": a session revoked through one auth node stops its access token on every node within 3 s. */

const REVOCATION_BOUND_MS = 3_000;

describeCluster("session revocation on two auth nodes", () => {
	let replicas: AuthReplicas;
	let admin: Session;

	beforeAll(async () => {
		replicas = await startAuthReplicas("memos-revocation-");
		await signUp(replicas.gatewayUrl, "admin");
		admin = await signIn(replicas.gatewayUrl, "admin");
		await signUp(replicas.gatewayUrl, "alice", undefined, { accessToken: admin.accessToken });
	});

	afterAll(async () => {
		await replicas?.stop();
	});

	/** Makes both auth nodes hold `token`'s session as live in their caches before it is revoked. */
	async function acceptedByBoth(token: string): Promise<void> {
		for (const id of replicas.authNodes) expect(await replicas.verifyOn(id, token)).toBe("alice");
	}

	test("a SignOut through one node is refused by both within 3 s", async () => {
		const session = await signIn(replicas.gatewayUrl, "alice");
		await acceptedByBoth(session.accessToken);
		const res = await fetch(`${replicas.gatewayUrl}/api/v1/auth/signout`, { method: "POST", headers: { Cookie: session.cookie } });
		expect(res.status).toBe(200);
		expect(await replicas.lateAcceptances(session.accessToken, Date.now(), REVOCATION_BOUND_MS)).toEqual([]);
		expect((await fetch(`${replicas.gatewayUrl}/api/v1/auth/me`, { headers: authHeaders(session) })).status).toBe(401);
	});

	test("an admin's password change for the user is refused by both within 3 s, while a fresh session works", async () => {
		const session = await signIn(replicas.gatewayUrl, "alice");
		await acceptedByBoth(session.accessToken);
		const res = await fetch(`${replicas.gatewayUrl}/api/v1/users/alice?updateMask=password`, {
			method: "PATCH",
			headers: authHeaders(admin),
			body: JSON.stringify({ password: "alice's new password" })
		});
		expect(res.status).toBe(200);
		expect(await replicas.lateAcceptances(session.accessToken, Date.now(), REVOCATION_BOUND_MS)).toEqual([]);
		const fresh = await signIn(replicas.gatewayUrl, "alice", "alice's new password");
		await acceptedByBoth(fresh.accessToken);
	});
});
