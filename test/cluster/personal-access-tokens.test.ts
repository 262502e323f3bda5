import { startAuthReplicas, type AuthReplicas } from "../support/auth-replicas.js";
import { describeCluster } from "../support/cluster.js";
import { authHeaders, signIn, signUp, type Session } from "../support/users.js";

/**
 * Contract 16 with two auth nodes over a real nats-server: a personal access token outlives the
 * access-token lifetime on both, and a deletion reaches both within 3 s.
 */

const DELETION_BOUND_MS = 3_000;
const ACCESS_TOKEN_LIFETIME_MS = 15 * 60 * 1000;

describeCluster("personal access tokens on two auth nodes", () => {
	let replicas: AuthReplicas;
	let admin: Session;

	beforeAll(async () => {
		replicas = await startAuthReplicas("memos-pat-");
		await signUp(replicas.gatewayUrl, "admin");
		admin = await signIn(replicas.gatewayUrl, "admin");
	});

	afterAll(async () => {
		await replicas?.stop();
	});

	test("a PAT works on both nodes past the access-token lifetime and stops on both within 3 s of its deletion", async () => {
		const { gatewayUrl, authNodes, verifyOn } = replicas;
		const created = await fetch(`${gatewayUrl}/api/v1/users/admin/personalAccessTokens`, { method: "POST", headers: authHeaders(admin), body: JSON.stringify({ description: "bot" }) });
		expect(created.status).toBe(200);
		const { token, personalAccessToken } = (await created.json()) as { token: string; personalAccessToken: { name: string } };

		replicas.shiftClocks(ACCESS_TOKEN_LIFETIME_MS + 60_000);
		for (const id of authNodes) {
			expect(await verifyOn(id, admin.accessToken)).toBe("UNAUTHENTICATED");
			expect(await verifyOn(id, token)).toBe("admin");
		}
		expect((await fetch(`${gatewayUrl}/api/v1/memos`, { headers: authHeaders(admin) })).status).toBe(401);
		expect((await fetch(`${gatewayUrl}/api/v1/memos`, { headers: authHeaders(token) })).status).toBe(200);

		// Both nodes hold the token in their caches now; the deletion goes to one of them.
		const deleted = await fetch(`${gatewayUrl}/api/v1/${personalAccessToken.name}`, { method: "DELETE", headers: authHeaders(token) });
		expect(deleted.status).toBe(200);
		expect(await replicas.lateAcceptances(token, Date.now(), DELETION_BOUND_MS)).toEqual([]);
		for (const id of authNodes) expect(await verifyOn(id, token)).toBe("UNAUTHENTICATED");
		expect((await fetch(`${gatewayUrl}/api/v1/memos`, { headers: authHeaders(token) })).status).toBe(401);
	});
});
