import { SETTING_DEFAULTS } from "../../services/instance/setting-defaults.js";
import type { EmbeddedApp } from "../support/embedded-app.js";
import { authHeaders, startPopulatedApp, type Population } from "../support/users.js";

/** Instance settings over HTTP (contract 11.1-11.4, 2.2). */

let app: EmbeddedApp & Population;
let admin: Record<string, string>;
let user: Record<string, string>;

beforeAll(async () => {
	app = await startPopulatedApp(1);
	admin = authHeaders(app.admin);
	user = authHeaders(app.users[0]!);
});

afterAll(async () => {
	await app?.stop();
});

interface Answer {
	status: number;
	body: Record<string, unknown>;
	text: string;
}

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
	const res = await fetch(`${app.baseUrl}${path}`, {
		method,
		headers: body === undefined ? headers : { "Content-Type": "application/json", ...headers },
		body: body === undefined ? undefined : JSON.stringify(body)
	});
	const text = await res.text();
	return { status: res.status, text, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const get = (key: string, headers?: Record<string, string>) => call("GET", `/api/v1/instance/settings/${key}`, headers);
const patch = (key: string, body: unknown, mask?: string, headers = admin) =>
	call("PATCH", `/api/v1/instance/settings/${key}${mask === undefined ? "" : `?updateMask=${encodeURIComponent(mask)}`}`, headers, body);
const batchGet = (names: unknown, headers?: Record<string, string>) => call("POST", "/api/v1/instance/settings:batchGet", headers, { names });

describe("reading settings (11.1, 11.2)", () => {
	test("anyone reads GENERAL, MEMO_RELATED, TAGS and ACCESS; never-stored settings read as defaults", async () => {
		const general = await get("GENERAL");
		expect(general.status).toBe(200);
		expect(general.body).toEqual({ name: "instance/settings/GENERAL", generalSetting: SETTING_DEFAULTS.GENERAL });
		expect((await get("MEMO_RELATED")).body).toEqual({ name: "instance/settings/MEMO_RELATED", memoRelatedSetting: SETTING_DEFAULTS.MEMO_RELATED });
		expect((await get("TAGS")).body).toEqual({ name: "instance/settings/TAGS", tagsSetting: SETTING_DEFAULTS.TAGS });
		expect((await get("ACCESS")).body).toEqual({ name: "instance/settings/ACCESS", accessSetting: SETTING_DEFAULTS.ACCESS });
	});

	test("the key is case-insensitive and returned upper-case; an unknown key is INVALID_ARGUMENT", async () => {
		expect((await get("memo_related")).body.name).toBe("instance/settings/MEMO_RELATED");
		const unknown = await get("COLORS");
		expect(unknown.status).toBe(400);
		expect(unknown.body.code).toBe(3);
	});

	test("{instance} other than settings is not a route", async () => {
		const res = await call("GET", "/api/v1/instance/other/GENERAL");
		expect(res.status).toBe(404);
		expect(res.body).toEqual({ code: 5, message: "Not Found", details: [] });
	});

	test("STORAGE and NOTIFICATION: anonymous UNAUTHENTICATED, USER PERMISSION_DENIED, ADMIN allowed", async () => {
		for (const key of ["STORAGE", "NOTIFICATION"]) {
			expect((await get(key)).status).toBe(401);
			expect((await get(key, user)).status).toBe(403);
			expect((await get(key, user)).body.code).toBe(7);
			expect((await get(key, admin)).status).toBe(200);
		}
		expect((await get("STORAGE", admin)).body.storageSetting).toMatchObject({ storageType: "LOCAL", uploadSizeLimitMb: "30" });
	});

	test("AI: anonymous UNAUTHENTICATED; signed-in users read it", async () => {
		expect((await get("AI")).status).toBe(401);
		expect((await get("AI", user)).body).toEqual({ name: "instance/settings/AI", aiSetting: { providers: [] } });
	});
});

describe("BatchGetInstanceSettings (11.3)", () => {
	test("answers in request order, repeats included; an empty list is empty", async () => {
		const res = await batchGet(["instance/settings/ACCESS", "instance/settings/general", "instance/settings/ACCESS"]);
		expect(res.status).toBe(200);
		expect((res.body.settings as { name: string }[]).map(s => s.name)).toEqual([
			"instance/settings/ACCESS",
			"instance/settings/GENERAL",
			"instance/settings/ACCESS"
		]);
		expect((await batchGet([])).body).toEqual({ settings: [] });
		expect((await call("POST", "/api/v1/instance/settings:batchGet")).body).toEqual({ settings: [] });
	});

	test("one failing name fails the whole call with its error", async () => {
		expect((await batchGet(["instance/settings/GENERAL", "instance/settings/STORAGE"])).status).toBe(401);
		expect((await batchGet(["instance/settings/GENERAL", "instance/settings/STORAGE"], user)).status).toBe(403);
		expect((await batchGet(["instance/settings/GENERAL", "settings/GENERAL"])).status).toBe(400);
		expect((await batchGet(["instance/settings/NOPE"])).status).toBe(400);
		expect((await batchGet("instance/settings/GENERAL")).status).toBe(400);
		expect((await batchGet(["instance/settings/STORAGE", "instance/settings/NOTIFICATION"], admin)).status).toBe(200);
	});

	test("at most 100 names", async () => {
		expect((await batchGet(Array(100).fill("instance/settings/TAGS"))).status).toBe(200);
		const res = await batchGet(Array(101).fill("instance/settings/TAGS"));
		expect(res.status).toBe(400);
		expect(res.body.code).toBe(3);
	});
});

describe("UpdateInstanceSetting (11.4)", () => {
	test("admins only: anonymous UNAUTHENTICATED, USER PERMISSION_DENIED", async () => {
		const body = { generalSetting: { additionalStyle: "x" } };
		expect((await patch("GENERAL", body, undefined, {})).status).toBe(401);
		expect((await patch("GENERAL", body, undefined, user)).status).toBe(403);
	});

	test("without a mask the value is replaced; with one only the named fields change", async () => {
		const replaced = await patch("general", { name: "ignored", generalSetting: { additionalStyle: "body{}", weekStartDayOffset: 1 } });
		expect(replaced.status).toBe(200);
		expect(replaced.body).toEqual({
			name: "instance/settings/GENERAL",
			generalSetting: { ...SETTING_DEFAULTS.GENERAL, additionalStyle: "body{}", weekStartDayOffset: 1 }
		});
		const masked = await patch("GENERAL", { general_setting: { disallow_user_registration: true, additionalStyle: "not named" } }, "general_setting.disallow_user_registration");
		expect(masked.body.generalSetting).toMatchObject({ disallowUserRegistration: true, additionalStyle: "body{}", weekStartDayOffset: 1 });
		expect((await get("GENERAL")).body).toEqual(masked.body);
		const shorthand = await patch("GENERAL", { generalSetting: { weekStartDayOffset: 6 } }, "weekStartDayOffset");
		expect(shorthand.body.generalSetting).toMatchObject({ disallowUserRegistration: true, weekStartDayOffset: 6 });
		const bodyMask = await patch("GENERAL", { generalSetting: { weekStartDayOffset: 2 }, updateMask: "week_start_day_offset" });
		expect(bodyMask.body.generalSetting).toMatchObject({ disallowUserRegistration: false, additionalStyle: "", weekStartDayOffset: 2 });
	});

	test("a body value field of another key, an unknown mask path or a bad value is INVALID_ARGUMENT and nothing is stored", async () => {
		const before = await get("GENERAL");
		for (const res of [
			await patch("GENERAL", { storageSetting: { uploadSizeLimitMb: "5" } }),
			await patch("GENERAL", { generalSetting: {} }, "general_setting.unknown"),
			await patch("GENERAL", { generalSetting: { weekStartDayOffset: 9 } }),
			await patch("GENERAL", { generalSetting: { disallowChangeUsername: "yes" } }),
			await patch("GENERAL", {})
		]) {
			expect(res.status).toBe(400);
			expect(res.body.code).toBe(3);
		}
		expect((await get("GENERAL")).body).toEqual(before.body);
	});

	test("TAGS: invalid regexes and colours outside 0-1 are refused; valid tags are stored", async () => {
		expect((await patch("TAGS", { tagsSetting: { tags: { "[": {} } } })).status).toBe(400);
		expect((await patch("TAGS", { tagsSetting: { tags: { ok: { backgroundColor: { red: 2, green: 0, blue: 0 } } } } })).status).toBe(400);
		const ok = await patch("TAGS", { tagsSetting: { tags: { "work/.*": { backgroundColor: { red: 0.5, green: 0, blue: 1, alpha: 0.75 }, blurContent: true } } } });
		expect(ok.status).toBe(200);
		expect((await get("TAGS")).body).toEqual({
			name: "instance/settings/TAGS",
			tagsSetting: { tags: { "work/.*": { backgroundColor: { red: 0.5, green: 0, blue: 1, alpha: 0.75 }, blurContent: true } } }
		});
	});

	test("ACCESS: the mode must be PRIVATE or PUBLIC; the profile and every reader follow it", async () => {
		expect((await patch("ACCESS", { accessSetting: { accessMode: "WIDE_OPEN" } })).status).toBe(400);
		expect((await patch("ACCESS", { accessSetting: { accessMode: "INSTANCE_ACCESS_MODE_PUBLIC" } })).status).toBe(200);
		expect((await call("GET", "/api/v1/instance/profile")).body.accessMode).toBe("INSTANCE_ACCESS_MODE_PUBLIC");
		expect(await app.node.broker.call("instance.accessMode")).toBe("INSTANCE_ACCESS_MODE_PUBLIC");
		expect((await patch("ACCESS", { accessSetting: { accessMode: "INSTANCE_ACCESS_MODE_PRIVATE" } })).status).toBe(200);
		expect((await call("GET", "/api/v1/instance/profile")).body.accessMode).toBe("INSTANCE_ACCESS_MODE_PRIVATE");
	});

	test("MEMO_RELATED: a limit below 8192 reads as 8192", async () => {
		const res = await patch("MEMO_RELATED", { memoRelatedSetting: { contentLengthLimit: 100, enableDoubleClickEdit: true } });
		expect(res.body.memoRelatedSetting).toMatchObject({ contentLengthLimit: 8192, enableDoubleClickEdit: true });
		expect(await app.node.broker.call("instance.settingValue", { key: "MEMO_RELATED" })).toMatchObject({ contentLengthLimit: 8192 });
	});

	test("NOTIFICATION: the password is never returned, kept when sent empty, and needed again when the server changes", async () => {
		const email = { enabled: true, smtpHost: "smtp.example.com", smtpPort: 587, smtpUsername: "memos", smtpPassword: "hunter2-secret", fromEmail: "memos@example.com", useTls: true };
		const set = await patch("NOTIFICATION", { notificationSetting: { email } });
		expect(set.status).toBe(200);
		expect(set.text).not.toContain("hunter2-secret");
		expect((set.body.notificationSetting as { email: Record<string, unknown> }).email).toMatchObject({ smtpPassword: "", smtpHost: "smtp.example.com", smtpPort: 587, fromName: "", replyTo: "", useSsl: false });
		expect((await get("NOTIFICATION", admin)).text).not.toContain("hunter2-secret");

		expect((await patch("NOTIFICATION", { notificationSetting: { email: { ...email, smtpPassword: "", fromName: "Memos" } } })).status).toBe(200);
		expect(await app.node.broker.call("instance.settingValue", { key: "NOTIFICATION" })).toMatchObject({ email: { smtpPassword: "hunter2-secret", fromName: "Memos" } });

		const moved = await patch("NOTIFICATION", { notificationSetting: { email: { ...email, smtpPassword: "", smtpHost: "elsewhere.example.com" } } });
		expect(moved.status).toBe(400);
		expect((await patch("NOTIFICATION", { notificationSetting: { email: { ...email, smtpPort: 70000 } } })).status).toBe(400);
		expect(await app.node.broker.call("instance.settingValue", { key: "NOTIFICATION" })).toMatchObject({ email: { smtpHost: "smtp.example.com", smtpPassword: "hunter2-secret" } });
	});

	test("NOTIFICATION: the SMTP port is 1-65535; 0 and 65536 are INVALID_ARGUMENT and store nothing", async () => {
		const email = { enabled: false, smtpHost: "smtp.example.com", smtpPassword: "port-test-secret", fromEmail: "memos@example.com" };
		for (const smtpPort of [0, 65536]) {
			const refused = await patch("NOTIFICATION", { notificationSetting: { email: { ...email, smtpPort } } });
			expect(refused.status).toBe(400);
			expect(refused.body).toMatchObject({ code: 3, message: expect.stringContaining("smtpPort must be between 1 and 65535") });
			expect(await app.node.broker.call("instance.settingValue", { key: "NOTIFICATION" })).not.toMatchObject({ email: { smtpPort } });
		}
		for (const smtpPort of [1, 65535]) {
			const accepted = await patch("NOTIFICATION", { notificationSetting: { email: { ...email, smtpPort } } });
			expect(accepted.status).toBe(200);
			expect((accepted.body.notificationSetting as { email: Record<string, unknown> }).email.smtpPort).toBe(smtpPort);
		}
	});

	test("the gateway reads settings without their secrets, and its body limits still follow them", async () => {
		const s3Config = { accessKeyId: "AKIA-GATEWAY", accessKeySecret: "s3-secret-for-gateway", endpoint: "https://s3.example.com", bucket: "memos" };
		const storage = { storageType: "LOCAL", uploadSizeLimitMb: "2", s3Config, storages: [{ id: "s3", name: "S3", type: "S3", s3Config: { ...s3Config, accessKeySecret: "s3-secret-2-for-gateway" } }] };
		expect((await patch("STORAGE", { storageSetting: storage })).status).toBe(200);
		const email = { smtpHost: "smtp.example.com", smtpPort: 587, smtpPassword: "smtp-secret-for-gateway", fromEmail: "memos@example.com" };
		expect((await patch("NOTIFICATION", { notificationSetting: { email } })).status).toBe(200);
		expect((await patch("AI", { aiSetting: { providers: [{ id: "gw", title: "GW", type: "OPENAI", apiKey: "sk-secret-for-gateway" }] } })).status).toBe(200);

		const gateway = app.node.broker.getLocalService("gateway") as unknown as { instanceSetting(key: string): Promise<Record<string, unknown>> };
		for (const key of ["GENERAL", "STORAGE", "MEMO_RELATED", "TAGS", "NOTIFICATION", "AI", "ACCESS"]) {
			const seen = JSON.stringify(await gateway.instanceSetting(key));
			expect({ key, secrets: seen.match(/accessKeySecret|smtpPassword|apiKey|for-gateway/g) }).toEqual({ key, secrets: null });
		}
		expect(await gateway.instanceSetting("STORAGE")).toMatchObject({ uploadSizeLimitMb: 2, s3Config: { accessKeyId: "AKIA-GATEWAY" } });

		// The gateway sizes CreateAttachment's body from uploadSizeLimitMb: 2 MiB as base64 and 64 KiB around it.
		const attach = (bytes: number) => call("POST", "/api/v1/attachments", admin, { filename: "a.bin", type: "application/octet-stream", content: Buffer.alloc(bytes).toString("base64") });
		const limit = Math.ceil((2 * 1024 * 1024) / 3) * 4 + 64 * 1024;
		expect((await attach(3 * 1024 * 1024)).body).toMatchObject({ code: 3, message: `request body is larger than the ${limit} bytes this operation takes` });
		expect((await attach(1024 * 1024)).status).toBe(200);
		expect((await patch("STORAGE", { storageSetting: { ...storage, uploadSizeLimitMb: "30" } })).status).toBe(200);
	});

	test("AI: generated ids, default endpoint, apiKeySet/apiKeyHint for admins, reduced view for users, keys never returned", async () => {
		const res = await patch("AI", {
			aiSetting: {
				providers: [{ title: "OpenAI", type: "OPENAI", apiKey: "sk-proj-abcdefghijklmnop" }],
				transcription: { model: "whisper-1", language: "en", prompt: "hello" }
			}
		});
		expect(res.status).toBe(200);
		expect(res.text).not.toContain("sk-proj-abcdefghijklmnop");
		const provider = (res.body.aiSetting as { providers: Record<string, unknown>[] }).providers[0]!;
		expect(provider).toEqual({
			id: expect.stringMatching(/^[A-Za-z0-9]{22}$/),
			title: "OpenAI",
			type: "OPENAI",
			endpoint: "https://api.openai.com/v1",
			apiKey: "",
			apiKeySet: true,
			apiKeyHint: "sk-p...mnop"
		});

		const renamed = await patch("AI", { aiSetting: { providers: [{ ...provider, title: "Renamed" }], transcription: { providerId: provider.id, model: "whisper-1" } } });
		expect(renamed.status).toBe(200);
		expect((renamed.body.aiSetting as { providers: Record<string, unknown>[] }).providers[0]).toMatchObject({ title: "Renamed", apiKeySet: true, apiKeyHint: "sk-p...mnop" });

		expect((await get("AI", user)).body).toEqual({
			name: "instance/settings/AI",
			aiSetting: {
				providers: [{ id: provider.id, title: "Renamed", type: "OPENAI", endpoint: "", apiKey: "", apiKeySet: false, apiKeyHint: "" }],
				transcription: { providerId: provider.id, model: "", language: "", prompt: "" }
			}
		});

		for (const bad of [
			{ providers: [{ title: "No key", type: "OPENAI" }] },
			{ providers: [{ id: "a", title: "A", type: "OPENAI", apiKey: "k1" }, { id: "a", title: "B", type: "OPENAI", apiKey: "k2" }] },
			{ providers: [{ title: "", type: "OPENAI", apiKey: "k" }] },
			{ providers: [{ title: "X", type: "CLAUDE", apiKey: "k" }] },
			{ providers: [], transcription: { providerId: "missing" } }
		]) {
			expect((await patch("AI", { aiSetting: bad })).status).toBe(400);
		}
		expect((await get("AI", admin)).body).toEqual(renamed.body);
	});
	test("GENERAL: disallowing password sign-in needs an identity provider (FAILED_PRECONDITION without one)", async () => {
		const res = await patch("GENERAL", { generalSetting: { disallowPasswordAuth: true } }, "disallow_password_auth");
		expect(res.status).toBe(400);
		expect(res.body.code).toBe(9);
		expect(((await get("GENERAL")).body.generalSetting as Record<string, unknown>).disallowPasswordAuth).toBe(false);

		const idp = await call("POST", "/api/v1/identity-providers?identityProviderId=corp", admin, {
			type: "OAUTH2",
			title: "Corp",
			config: {
				oauth2Config: {
					clientId: "memos",
					clientSecret: "secret",
					authUrl: "https://sso.example.com/authorize",
					tokenUrl: "https://sso.example.com/token",
					userInfoUrl: "https://sso.example.com/userinfo",
					scopes: ["profile"],
					fieldMapping: { identifier: "sub", displayName: "", email: "", avatarUrl: "" }
				}
			}
		});
		expect(idp.status).toBe(200);
		const allowed = await patch("GENERAL", { generalSetting: { disallowPasswordAuth: true } }, "disallow_password_auth");
		expect(allowed.status).toBe(200);
		expect((allowed.body.generalSetting as Record<string, unknown>).disallowPasswordAuth).toBe(true);
	});
});
