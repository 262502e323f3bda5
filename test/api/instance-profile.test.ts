import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { documentsOf } from "../../shared/runtime/resources.js";
import type { UserDoc } from "../../services/auth/user-doc.js";
import { startEmbeddedApp } from "../support/embedded-app.js";
import { authHeaders, signIn, signUp } from "../support/users.js";

const adminDoc: UserDoc = {
	_id: "u1",
	username: "alice",
	role: "ADMIN",
	state: "NORMAL",
	email: "alice@example.com",
	displayName: "Alice",
	avatarUrl: "",
	description: "",
	passwordHash: "x",
	createTime: Date.UTC(2025, 0, 1, 9, 30, 0, 123),
	updateTime: Date.UTC(2025, 0, 1, 9, 30, 0, 123)
};

describe("GET /api/v1/instance/profile (contract 4.10)", () => {
	test("a new instance needs set-up and has no admin", async () => {
		const app = await startEmbeddedApp({ INSTANCE_URL: "https://memos.example.com", COMMIT: "abc123" });
		try {
			const res = await fetch(`${app.baseUrl}/api/v1/instance/profile`);
			expect(res.status).toBe(200);
			expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
			expect(await res.json()).toEqual({
				version: "0.0.1",
				demo: false,
				instanceUrl: "https://memos.example.com",
				commit: "abc123",
				needsSetup: true,
				accessMode: "INSTANCE_ACCESS_MODE_PRIVATE",
				apiCompat: "strict"
			});
		} finally {
			await app.stop();
		}
	});

	test("data survives a restart with the same DATA_DIR", async () => {
		const dataDir = await mkdtemp(path.join(os.tmpdir(), "memos-restart-"));
		try {
			const first = await startEmbeddedApp({}, dataDir);
			await documentsOf(first.node.broker).collection<UserDoc>("users").insert(adminDoc);
			await first.stop();

			const second = await startEmbeddedApp({}, dataDir);
			try {
				const body = (await (await fetch(`${second.baseUrl}/api/v1/instance/profile`)).json()) as Record<string, unknown>;
				expect(body.needsSetup).toBe(false);
				expect(body.admin).toEqual({
					name: "users/alice",
					role: "ADMIN",
					username: "alice",
					email: "",
					displayName: "Alice",
					avatarUrl: "",
					description: "",
					state: "NORMAL",
					createTime: "2025-01-01T09:30:00.123Z",
					updateTime: "2025-01-01T09:30:00.123Z"
				});
			} finally {
				await second.stop();
			}
		} finally {
			await rm(dataDir, { recursive: true, force: true });
		}
	});

	test("the profile is cached, yet shows a user change at once: set-up done, the admin's edits", async () => {
		const app = await startEmbeddedApp();
		const profile = async () => (await (await fetch(`${app.baseUrl}/api/v1/instance/profile`)).json()) as { needsSetup: boolean; admin?: { displayName: string } };
		try {
			expect((await profile()).needsSetup).toBe(true);
			await signUp(app.baseUrl, "alice");
			expect(await profile()).toMatchObject({ needsSetup: false, admin: { displayName: "" } });

			const alice = await signIn(app.baseUrl, "alice");
			const renamed = await fetch(`${app.baseUrl}/api/v1/users/alice?updateMask=display_name`, {
				method: "PATCH",
				headers: authHeaders(alice),
				body: JSON.stringify({ displayName: "Alice A." })
			});
			expect(renamed.status).toBe(200);
			expect((await profile()).admin?.displayName).toBe("Alice A.");
		} finally {
			await app.stop();
		}
	});
});
