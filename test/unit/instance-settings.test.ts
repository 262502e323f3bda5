import type { InstanceSettingKey } from "../../shared/names.js";
import { SETTING_DEFAULTS } from "../../services/instance/setting-defaults.js";
import { requireAdmin, settingReadView } from "../../services/instance/setting-access.js";
import { apiKeyHint, effectiveSetting, parseSettingBody, toSettingJson, type SettingValue } from "../../services/instance/setting-json.js";
import { mergeSetting, parseSettingMask } from "../../services/instance/setting-mask.js";
import { keepStoredSecrets, withoutSecrets } from "../../services/instance/setting-secrets.js";
import { validateSetting } from "../../services/instance/setting-validation.js";
import { codeOf, expectInvalidArgument } from "../support/service-errors.js";

/** What the update action does before storing: merge, keep secrets, validate. */
function update(key: InstanceSettingKey, stored: SettingValue | undefined, body: Record<string, unknown>, mask?: string): SettingValue {
	const next = mergeSetting(key, stored, parseSettingBody(key, body), parseSettingMask(key, mask));
	keepStoredSecrets(key, next, stored);
	validateSetting(key, next, () => "generated-id");
	return next;
}

const admin = { id: "u1", username: "root", role: "ADMIN" as const };
const member = { id: "u2", username: "bob", role: "USER" as const };

describe("setting JSON (contract 4.12, 1.3)", () => {
	// The contract's defaults (4.12) written out once; other tests refer to SETTING_DEFAULTS.
	test("never-stored settings read as their defaults with every scalar emitted", () => {
		expect(toSettingJson("GENERAL", undefined, "member")).toEqual({
			name: "instance/settings/GENERAL",
			generalSetting: {
				disallowUserRegistration: false,
				disallowPasswordAuth: false,
				additionalScript: "",
				additionalStyle: "",
				weekStartDayOffset: 0,
				disallowChangeUsername: false,
				disallowChangeNickname: false
			}
		});
		expect(toSettingJson("STORAGE", undefined, "admin").storageSetting).toEqual({
			storageType: "LOCAL",
			filepathTemplate: "assets/{timestamp}_{uuid}_{filename}",
			uploadSizeLimitMb: "30",
			storages: [],
			defaultStorageId: ""
		});
		expect(toSettingJson("MEMO_RELATED", undefined, "member").memoRelatedSetting).toEqual({
			contentLengthLimit: 8192,
			enableDoubleClickEdit: false,
			reactions: ["👍", "👎", "❤️", "🎉", "😄", "😕", "😢", "😡"]
		});
		expect(toSettingJson("TAGS", undefined, "member").tagsSetting).toEqual({ tags: {} });
		expect(toSettingJson("NOTIFICATION", undefined, "admin").notificationSetting).toEqual({});
		expect(toSettingJson("AI", undefined, "admin").aiSetting).toEqual({ providers: [] });
		expect(toSettingJson("ACCESS", undefined, "member").accessSetting).toEqual({ accessMode: "INSTANCE_ACCESS_MODE_PRIVATE" });
	});

	test("content length below 8192 and empty reactions read as the defaults", () => {
		const value = effectiveSetting("MEMO_RELATED", { contentLengthLimit: 100, reactions: [] });
		expect(value.contentLengthLimit).toBe(SETTING_DEFAULTS.MEMO_RELATED.contentLengthLimit);
		expect(value.reactions).toEqual(SETTING_DEFAULTS.MEMO_RELATED.reactions);
		expect(effectiveSetting("MEMO_RELATED", { contentLengthLimit: 20000 }).contentLengthLimit).toBe(20000);
	});

	test("snake_case input, numeric strings and enum numbers are accepted", () => {
		const next = update("STORAGE", undefined, { storage_setting: { storage_type: 3, upload_size_limit_mb: "64" } });
		expect(next.storageType).toBe("S3");
		expect(next.uploadSizeLimitMb).toBe(64);
	});

	test("wrong JSON types are INVALID_ARGUMENT naming the field", () => {
		expectInvalidArgument(() => update("GENERAL", undefined, { generalSetting: { disallowUserRegistration: "yes" } }), "disallowUserRegistration");
		expect(codeOf(() => update("GENERAL", undefined, { generalSetting: "x" }))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => update("MEMO_RELATED", undefined, { memoRelatedSetting: { reactions: "👍" } }))).toBe("INVALID_ARGUMENT");
		// Reactions of 1 and 64 bytes are the bounds of contract 14, both accepted.
		expect(codeOf(() => validateSetting("MEMO_RELATED", { contentLengthLimit: 8192, reactions: ["x", "y".repeat(64)] }))).toBe("OK");
		expectInvalidArgument(() => validateSetting("MEMO_RELATED", { contentLengthLimit: 8192, reactions: ["x", "y".repeat(65)] }), "memoRelatedSetting.reactions[1] must be 1-64 bytes");
	});

	test("a body value field of another key is INVALID_ARGUMENT", () => {
		expect(codeOf(() => parseSettingBody("GENERAL", { storageSetting: {} }))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => parseSettingBody("GENERAL", { generalSetting: {}, memo_related_setting: {} }))).toBe("INVALID_ARGUMENT");
	});

	test("apiKeyHint shows the first and last four characters, or ... for short keys", () => {
		expect(apiKeyHint("sk-abcdefghijkl")).toBe("sk-a...ijkl");
		expect(apiKeyHint("12345678")).toBe("...");
		expect(apiKeyHint("123456789")).toBe("1234...6789");
	});

	test("secrets read as empty strings; AI providers report apiKeySet and apiKeyHint to admins only", () => {
		const storage = toSettingJson("STORAGE", { s3Config: { accessKeyId: "AK", accessKeySecret: "s3-secret" } }, "admin");
		expect((storage.storageSetting as { s3Config: Record<string, unknown> }).s3Config.accessKeySecret).toBe("");
		expect(JSON.stringify(storage)).not.toContain("s3-secret");

		const ai: SettingValue = {
			providers: [{ id: "p1", title: "OpenAI", type: "OPENAI", endpoint: "https://api.example.com/v1", apiKey: "sk-1234567890abcd" }],
			transcription: { providerId: "p1", model: "whisper-1", language: "en", prompt: "memo" }
		};
		expect(toSettingJson("AI", ai, "admin").aiSetting).toEqual({
			providers: [{ id: "p1", title: "OpenAI", type: "OPENAI", endpoint: "https://api.example.com/v1", apiKey: "", apiKeySet: true, apiKeyHint: "sk-1...abcd" }],
			transcription: { providerId: "p1", model: "whisper-1", language: "en", prompt: "memo" }
		});
		expect(toSettingJson("AI", ai, "member").aiSetting).toEqual({
			providers: [{ id: "p1", title: "OpenAI", type: "OPENAI", endpoint: "", apiKey: "", apiKeySet: false, apiKeyHint: "" }],
			transcription: { providerId: "p1", model: "", language: "", prompt: "" }
		});
	});

	test("TAGS colours keep an unset alpha absent", () => {
		const next = update("TAGS", undefined, { tagsSetting: { tags: { "work.*": { backgroundColor: { red: 1, green: 0.5, blue: "0" }, blurContent: true } } } });
		expect(toSettingJson("TAGS", next, "member").tagsSetting).toEqual({
			tags: { "work.*": { backgroundColor: { red: 1, green: 0.5, blue: 0 }, blurContent: true } }
		});
	});
});

describe("values without secrets (the gateway's view)", () => {
	const s3 = { accessKeyId: "AKIA-ID", accessKeySecret: "s3-secret", endpoint: "https://s3.example.com", bucket: "b" };

	test("every write-only secret is left out, at any depth; every other field is kept", () => {
		const storage = { storageType: "S3", uploadSizeLimitMb: 64, s3Config: s3, storages: [{ id: "a", type: "S3", s3Config: { ...s3, accessKeySecret: "s3-secret-2" } }] };
		expect(withoutSecrets("STORAGE", effectiveSetting("STORAGE", storage))).toEqual({
			...effectiveSetting("STORAGE", storage),
			s3Config: { accessKeyId: "AKIA-ID", endpoint: "https://s3.example.com", bucket: "b" },
			storages: [{ id: "a", type: "S3", s3Config: { accessKeyId: "AKIA-ID", endpoint: "https://s3.example.com", bucket: "b" } }]
		});
		const email = { enabled: true, smtpHost: "smtp.example.com", smtpPort: 587, smtpPassword: "smtp-secret" };
		expect(withoutSecrets("NOTIFICATION", { email })).toEqual({ email: { enabled: true, smtpHost: "smtp.example.com", smtpPort: 587 } });
		const provider = { id: "p1", title: "P", type: "OPENAI", endpoint: "https://api.example.com/v1", apiKey: "sk-secret" };
		expect(withoutSecrets("AI", { providers: [provider], transcription: { providerId: "p1" } })).toEqual({
			providers: [{ id: "p1", title: "P", type: "OPENAI", endpoint: "https://api.example.com/v1" }],
			transcription: { providerId: "p1" }
		});
	});

	test("settings without secrets pass whole; a field the schema does not name is left out", () => {
		for (const key of ["GENERAL", "MEMO_RELATED", "TAGS", "ACCESS"] as const) {
			expect(withoutSecrets(key, effectiveSetting(key, undefined))).toEqual(effectiveSetting(key, undefined));
		}
		expect(withoutSecrets("MEMO_RELATED", { contentLengthLimit: 9000, password: "x" })).toEqual({ contentLengthLimit: 9000 });
	});
});

describe("update masks (contract 11.4)", () => {
	test("accepts the path under the value field, the bare field name, and the value field itself", () => {
		expect(parseSettingMask("GENERAL", "general_setting.disallow_user_registration")).toEqual(["disallowUserRegistration"]);
		expect(parseSettingMask("GENERAL", "disallowUserRegistration, weekStartDayOffset")).toEqual(["disallowUserRegistration", "weekStartDayOffset"]);
		expect(parseSettingMask("GENERAL", "general_setting")).toBeNull();
		expect(parseSettingMask("GENERAL", undefined)).toBeNull();
		expect(parseSettingMask("GENERAL", "")).toBeNull();
	});

	test("unknown paths, paths of another key and output-only fields are INVALID_ARGUMENT", () => {
		expect(codeOf(() => parseSettingMask("GENERAL", "nope"))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => parseSettingMask("GENERAL", "storage_setting.storage_type"))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => parseSettingMask("AI", "api_key_set"))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => parseSettingMask("GENERAL", "*"))).toBe("INVALID_ARGUMENT");
	});

	test("with a mask only the named fields change; a named field left out of the body is cleared", () => {
		const stored = update("GENERAL", undefined, { generalSetting: { additionalStyle: "body{}", weekStartDayOffset: 1 } });
		const masked = update("GENERAL", stored, { generalSetting: { disallowUserRegistration: true, additionalStyle: "ignored" } }, "disallow_user_registration");
		expect(masked).toMatchObject({ disallowUserRegistration: true, additionalStyle: "body{}", weekStartDayOffset: 1 });
		const cleared = update("GENERAL", masked, { generalSetting: {} }, "general_setting.week_start_day_offset");
		expect(cleared.weekStartDayOffset).toBe(0);
		expect(cleared.disallowUserRegistration).toBe(true);
	});

	test("without a mask the body replaces the value; a body without the value field is INVALID_ARGUMENT", () => {
		const stored = update("GENERAL", undefined, { generalSetting: { additionalStyle: "body{}" } });
		expect(update("GENERAL", stored, { generalSetting: { weekStartDayOffset: 2 } }).additionalStyle).toBe("");
		expect(codeOf(() => update("GENERAL", stored, {}))).toBe("INVALID_ARGUMENT");
	});
});

describe("validation (contract 11.4)", () => {
	test("GENERAL weekStartDayOffset is 0-6", () => {
		expect(codeOf(() => update("GENERAL", undefined, { generalSetting: { weekStartDayOffset: 7 } }))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => update("GENERAL", undefined, { generalSetting: { weekStartDayOffset: -1 } }))).toBe("INVALID_ARGUMENT");
	});

	test("STORAGE rejects negative limits and duplicate storage ids", () => {
		expect(codeOf(() => update("STORAGE", undefined, { storageSetting: { uploadSizeLimitMb: -1 } }))).toBe("INVALID_ARGUMENT");
		const storages = [{ id: "a", name: "A", type: "S3" }, { id: "a", name: "B", type: "LOCAL" }];
		expect(codeOf(() => update("STORAGE", undefined, { storageSetting: { storages } }))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => update("STORAGE", undefined, { storageSetting: { defaultStorageId: "zzz" } }))).toBe("INVALID_ARGUMENT");
	});

	test("TAGS keys must be valid regular expressions and colours within 0-1", () => {
		expect(codeOf(() => update("TAGS", undefined, { tagsSetting: { tags: { "(": {} } } }))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => update("TAGS", undefined, { tagsSetting: { tags: { a: { backgroundColor: { red: 1.5 } } } } }))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => update("TAGS", undefined, { tagsSetting: { tags: { a: { backgroundColor: { alpha: -0.1 } } } } }))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => update("TAGS", undefined, { tagsSetting: { tags: { a: { backgroundColor: { blue: "NaN" } } } } }))).toBe("INVALID_ARGUMENT");
		expect(update("TAGS", undefined, { tagsSetting: { tags: { "proj/[a-z]+": { backgroundColor: { red: 0, green: 1, blue: 0.25, alpha: 1 } } } } }).tags).toBeDefined();
	});

	test("ACCESS accessMode must be PRIVATE or PUBLIC", () => {
		expect(update("ACCESS", undefined, { accessSetting: { accessMode: "INSTANCE_ACCESS_MODE_PUBLIC" } }).accessMode).toBe("INSTANCE_ACCESS_MODE_PUBLIC");
		expect(update("ACCESS", undefined, { accessSetting: { accessMode: 1 } }).accessMode).toBe("INSTANCE_ACCESS_MODE_PRIVATE");
		expect(codeOf(() => update("ACCESS", undefined, { accessSetting: { accessMode: "INSTANCE_ACCESS_MODE_UNSPECIFIED" } }))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => update("ACCESS", undefined, { accessSetting: { accessMode: "OPEN" } }))).toBe("INVALID_ARGUMENT");
		expect(update("ACCESS", undefined, { accessSetting: {} }).accessMode).toBe("INSTANCE_ACCESS_MODE_PRIVATE");
	});

	test("NOTIFICATION ports outside 1-65535 are INVALID_ARGUMENT", () => {
		expect(codeOf(() => update("NOTIFICATION", undefined, { notificationSetting: { email: { smtpPort: 70000 } } }))).toBe("INVALID_ARGUMENT");
		expect(codeOf(() => update("NOTIFICATION", undefined, { notificationSetting: { email: { smtpPort: -1 } } }))).toBe("INVALID_ARGUMENT");
	});

	describe("AI providers", () => {
		const provider = { id: "", title: "Whisper", type: "OPENAI", endpoint: "", apiKey: "sk-secret-value" };

		test("an empty id gets a generated one and an empty OPENAI endpoint the OpenAI one", () => {
			const next = update("AI", undefined, { aiSetting: { providers: [provider] } });
			expect(next.providers).toEqual([{ id: "generated-id", title: "Whisper", type: "OPENAI", endpoint: "https://api.openai.com/v1", apiKey: "sk-secret-value" }]);
		});

		test("duplicate ids, empty titles, unknown types and missing keys are INVALID_ARGUMENT", () => {
			const p = { ...provider, id: "p1" };
			expect(codeOf(() => update("AI", undefined, { aiSetting: { providers: [p, p] } }))).toBe("INVALID_ARGUMENT");
			expect(codeOf(() => update("AI", undefined, { aiSetting: { providers: [{ ...p, title: " " }] } }))).toBe("INVALID_ARGUMENT");
			expect(codeOf(() => update("AI", undefined, { aiSetting: { providers: [{ ...p, type: "CLAUDE" }] } }))).toBe("INVALID_ARGUMENT");
			expect(codeOf(() => update("AI", undefined, { aiSetting: { providers: [{ ...p, type: "TYPE_UNSPECIFIED" }] } }))).toBe("INVALID_ARGUMENT");
			expect(codeOf(() => update("AI", undefined, { aiSetting: { providers: [{ ...p, apiKey: "" }] } }))).toBe("INVALID_ARGUMENT");
		});

		test("an empty apiKey keeps the stored key of the same provider", () => {
			const stored = update("AI", undefined, { aiSetting: { providers: [{ ...provider, id: "p1" }] } });
			const next = update("AI", stored, { aiSetting: { providers: [{ ...provider, id: "p1", title: "Renamed", apiKey: "" }] } });
			expect((next.providers as SettingValue[])[0]).toMatchObject({ title: "Renamed", apiKey: "sk-secret-value" });
			expect(codeOf(() => update("AI", stored, { aiSetting: { providers: [{ ...provider, id: "p2", apiKey: "" }] } }))).toBe("INVALID_ARGUMENT");
		});

		test("transcription must name a configured provider and respect the length limits", () => {
			const providers = [{ ...provider, id: "p1" }];
			expect(codeOf(() => update("AI", undefined, { aiSetting: { providers, transcription: { providerId: "p2" } } }))).toBe("INVALID_ARGUMENT");
			expect(codeOf(() => update("AI", undefined, { aiSetting: { providers, transcription: { providerId: "p1", model: "m".repeat(257) } } }))).toBe("INVALID_ARGUMENT");
			expect(codeOf(() => update("AI", undefined, { aiSetting: { providers, transcription: { providerId: "p1", language: "l".repeat(33) } } }))).toBe("INVALID_ARGUMENT");
			expect(codeOf(() => update("AI", undefined, { aiSetting: { providers, transcription: { providerId: "p1", prompt: "p".repeat(4097) } } }))).toBe("INVALID_ARGUMENT");
			const ok = update("AI", undefined, { aiSetting: { providers, transcription: { providerId: "p1", model: "m".repeat(256), prompt: "é".repeat(4096) } } });
			expect(ok.transcription).toMatchObject({ providerId: "p1", language: "" });
		});
	});

	test("STORAGE: empty S3 secrets keep the stored ones, per storage id", () => {
		const s3 = (secret: string) => ({ accessKeyId: "AK", accessKeySecret: secret, endpoint: "https://s3.example.com", region: "r", bucket: "b" });
		const stored = update("STORAGE", undefined, { storageSetting: { s3Config: s3("top-secret"), storages: [{ id: "a", name: "A", type: "S3", s3Config: s3("a-secret") }] } });
		const next = update("STORAGE", stored, {
			storageSetting: { s3Config: s3(""), storages: [{ id: "a", name: "A2", type: "S3", s3Config: s3("") }, { id: "b", name: "B", type: "S3", s3Config: s3("") }] }
		});
		expect((next.s3Config as SettingValue).accessKeySecret).toBe("top-secret");
		expect((next.storages as SettingValue[]).map(s => (s.s3Config as SettingValue).accessKeySecret)).toEqual(["a-secret", ""]);
		expect(JSON.stringify(toSettingJson("STORAGE", next, "admin"))).not.toMatch(/top-secret|a-secret/);
	});

	describe("SMTP password", () => {
		const email = { enabled: true, smtpHost: "smtp.example.com", smtpPort: 587, smtpUsername: "memos", smtpPassword: "pw-1", fromEmail: "m@example.com", useTls: true };

		test("an empty password keeps the stored one while the server identity is unchanged", () => {
			const stored = update("NOTIFICATION", undefined, { notificationSetting: { email } });
			const next = update("NOTIFICATION", stored, { notificationSetting: { email: { ...email, smtpPassword: "", fromName: "Memos" } } });
			expect(next.email).toMatchObject({ smtpPassword: "pw-1", fromName: "Memos" });
		});

		test.each([["smtpHost", "other.example.com"], ["smtpPort", 465], ["smtpUsername", "x"], ["useTls", false], ["useSsl", true]])(
			"changing %s with a stored password requires the password",
			(field, value) => {
				const stored = update("NOTIFICATION", undefined, { notificationSetting: { email } });
				expect(codeOf(() => update("NOTIFICATION", stored, { notificationSetting: { email: { ...email, smtpPassword: "", [field]: value } } }))).toBe("INVALID_ARGUMENT");
				const next = update("NOTIFICATION", stored, { notificationSetting: { email: { ...email, smtpPassword: "pw-2", [field]: value } } });
				expect(next.email).toMatchObject({ smtpPassword: "pw-2" });
			}
		);
	});
});

describe("read access (contract 11.2)", () => {
	test("public keys for anyone, AI for signed-in users, STORAGE and NOTIFICATION for admins", () => {
		for (const key of ["GENERAL", "MEMO_RELATED", "TAGS", "ACCESS"] as const) expect(settingReadView(key, null)).toBe("member");
		expect(codeOf(() => settingReadView("AI", null))).toBe("UNAUTHENTICATED");
		expect(settingReadView("AI", member)).toBe("member");
		expect(settingReadView("AI", admin)).toBe("admin");
		for (const key of ["STORAGE", "NOTIFICATION"] as const) {
			expect(codeOf(() => settingReadView(key, null))).toBe("UNAUTHENTICATED");
			expect(codeOf(() => settingReadView(key, member))).toBe("PERMISSION_DENIED");
			expect(settingReadView(key, admin)).toBe("admin");
		}
		expect(codeOf(() => requireAdmin(null, "x"))).toBe("UNAUTHENTICATED");
		expect(codeOf(() => requireAdmin(member, "x"))).toBe("PERMISSION_DENIED");
	});
});

describe("validation limits, both sides, and what each refusal says (contract 11.4, 14)", () => {
	const check = (key: InstanceSettingKey, value: SettingValue) => validateSetting(key, value, () => "generated-id");

	test("GENERAL: offsets 0 and 6 are the bounds", () => {
		expect(codeOf(() => check("GENERAL", { weekStartDayOffset: 0 }))).toBe("OK");
		expect(codeOf(() => check("GENERAL", { weekStartDayOffset: 6 }))).toBe("OK");
		expectInvalidArgument(() => check("GENERAL", { weekStartDayOffset: 7 }), "generalSetting.weekStartDayOffset must be between 0 (Sunday) and 6");
	});

	test("MEMO_RELATED: a content limit of 0 is allowed, a negative one is not; reactions are 1-64 bytes", () => {
		expect(codeOf(() => check("MEMO_RELATED", { contentLengthLimit: 0, reactions: ["👍", "x".repeat(64), "é".repeat(32)] }))).toBe("OK");
		expectInvalidArgument(() => check("MEMO_RELATED", { contentLengthLimit: -1, reactions: [] }), "memoRelatedSetting.contentLengthLimit must not be negative");
		expectInvalidArgument(() => check("MEMO_RELATED", { contentLengthLimit: 8192, reactions: ["ok", "x".repeat(65)] }), "memoRelatedSetting.reactions[1] must be 1-64 bytes");
		expectInvalidArgument(() => check("MEMO_RELATED", { contentLengthLimit: 8192, reactions: ["é".repeat(33)] }), "reactions[0] must be 1-64 bytes");
		expectInvalidArgument(() => check("MEMO_RELATED", { contentLengthLimit: 8192, reactions: [""] }), "reactions[0] must be 1-64 bytes");
	});

	test("STORAGE: an unspecified type reads as LOCAL; storages need an id and a type; the default names one of them", () => {
		const value: SettingValue = { storageType: "STORAGE_TYPE_UNSPECIFIED", uploadSizeLimitMb: 0, storages: [{ id: "a", type: "S3" }], defaultStorageId: "a" };
		check("STORAGE", value);
		expect(value.storageType).toBe("LOCAL");
		const s3: SettingValue = { storageType: "S3", uploadSizeLimitMb: 30, storages: [] };
		check("STORAGE", s3);
		expect(s3.storageType).toBe("S3");
		expectInvalidArgument(() => check("STORAGE", { uploadSizeLimitMb: -1 }), "storageSetting.uploadSizeLimitMb must not be negative");
		expectInvalidArgument(() => check("STORAGE", { uploadSizeLimitMb: 0, storages: [{ id: "a", type: "S3" }, { id: "", type: "S3" }] }), "storageSetting.storages[1].id must not be empty");
		expectInvalidArgument(() => check("STORAGE", { uploadSizeLimitMb: 0, storages: [{ id: "a", type: "S3" }, { id: "a", type: "S3" }] }), 'storageSetting.storages[1].id "a" is used twice');
		expectInvalidArgument(() => check("STORAGE", { uploadSizeLimitMb: 0, storages: [{ id: 7, type: "S3" }] }), "storageSetting.storages[0].id must not be empty");
		expectInvalidArgument(() => check("STORAGE", { uploadSizeLimitMb: 0, storages: [{ id: "a", type: "STORAGE_TYPE_UNSPECIFIED" }] }), "storageSetting.storages[0].type must be DATABASE, LOCAL or S3");
		expectInvalidArgument(() => check("STORAGE", { uploadSizeLimitMb: 0, defaultStorageId: "b" }), "storageSetting.defaultStorageId must name one of the storages");
	});

	test("TAGS: an empty or invalid pattern and colours outside 0-1 name the tag", () => {
		expect(codeOf(() => check("TAGS", { tags: { a: { backgroundColor: { red: 0, green: 1 } } } }))).toBe("OK");
		expectInvalidArgument(() => check("TAGS", { tags: { "": {} } }), 'tagsSetting.tags[""]: the tag pattern must not be empty');
		expectInvalidArgument(() => check("TAGS", { tags: { "(": {} } }), 'tagsSetting.tags["("]: the tag pattern is not a valid regular expression');
		expectInvalidArgument(() => check("TAGS", { tags: { a: { backgroundColor: { green: 1.01 } } } }), 'tagsSetting.tags["a"].backgroundColor.green must be between 0 and 1');
	});

	test("TAGS: a tag without a colour is fine; a colour component must be a number, not a numeric string", () => {
		expect(codeOf(() => check("TAGS", { tags: { a: { blurContent: true } } }))).toBe("OK");
		expectInvalidArgument(() => check("TAGS", { tags: { a: { backgroundColor: { red: "0.5" } } } }), 'tagsSetting.tags["a"].backgroundColor.red must be between 0 and 1');
	});

	test("AI: a provider endpoint may be http or https, nothing else", () => {
		const ai = (endpoint: string): SettingValue => ({ providers: [{ id: "p1", title: "P", type: "OPENAI", apiKey: "k", endpoint }] });
		expect(codeOf(() => check("AI", ai("http://127.0.0.1:8080/v1")))).toBe("OK");
		expect(codeOf(() => check("AI", ai("https://api.example.com/v1")))).toBe("OK");
		expectInvalidArgument(() => check("AI", ai("ftp://example.com/v1")), "aiSetting.providers[0].endpoint must be an http(s) URL");
	});

	test("NOTIFICATION: ports 1 and 65535 are the bounds; no e-mail block is nothing to check", () => {
		expect(codeOf(() => check("NOTIFICATION", { email: { smtpPort: 1 } }))).toBe("OK");
		expect(codeOf(() => check("NOTIFICATION", { email: { smtpPort: 65535 } }))).toBe("OK");
		expect(codeOf(() => check("NOTIFICATION", {}))).toBe("OK");
		expectInvalidArgument(() => check("NOTIFICATION", { email: { smtpPort: 0 } }), "notificationSetting.email.smtpPort must be between 1 and 65535");
		expectInvalidArgument(() => check("NOTIFICATION", { email: { smtpPort: 65536 } }), "notificationSetting.email.smtpPort must be between 1 and 65535");
	});

	test("AI: endpoints are http(s) URLs; GEMINI keeps an empty endpoint; the transcription limits are inclusive", () => {
		const provider = { id: "p1", title: "P", type: "OPENAI", apiKey: "k", endpoint: "https://example.com/v1" };
		expectInvalidArgument(() => check("AI", { providers: [{ ...provider, endpoint: "not a url" }] }), "aiSetting.providers[0].endpoint must be an http(s) URL");
		expectInvalidArgument(() => check("AI", { providers: [{ ...provider, endpoint: "ftp://example.com" }] }), "aiSetting.providers[0].endpoint must be an http(s) URL");
		expectInvalidArgument(() => check("AI", { providers: [{ ...provider, title: 7 }] }), "aiSetting.providers[0].title must not be empty");
		expectInvalidArgument(() => check("AI", { providers: [provider, provider] }), 'aiSetting.providers[1].id "p1" is used twice');
		expectInvalidArgument(() => check("AI", { providers: [{ ...provider, type: "CLAUDE" }] }), "aiSetting.providers[0].type must be OPENAI or GEMINI");
		expectInvalidArgument(() => check("AI", { providers: [{ ...provider, apiKey: "" }] }), "aiSetting.providers[0].apiKey is required");
		const gemini = { ...provider, type: "GEMINI", endpoint: "" };
		const value: SettingValue = { providers: [gemini], transcription: { providerId: "", model: "m".repeat(256), language: "l".repeat(32), prompt: "p".repeat(4096) } };
		check("AI", value);
		expect((value.providers as SettingValue[])[0]?.endpoint).toBe("");
		expectInvalidArgument(() => check("AI", { providers: [], transcription: { providerId: "p9" } }), "aiSetting.transcription.providerId must name a configured provider");
		expectInvalidArgument(() => check("AI", { providers: [], transcription: { model: "🙂".repeat(257) } }), "aiSetting.transcription.model must be at most 256 characters");
		expectInvalidArgument(() => check("AI", { providers: [], transcription: { language: "l".repeat(33) } }), "aiSetting.transcription.language must be at most 32 characters");
		expectInvalidArgument(() => check("AI", { providers: [], transcription: { prompt: "p".repeat(4097) } }), "aiSetting.transcription.prompt must be at most 4096 characters");
		expect(codeOf(() => check("AI", { providers: "none" }))).toBe("OK");
	});

	test("ACCESS: the refusal names both modes", () => {
		expectInvalidArgument(() => check("ACCESS", { accessMode: "OPEN" }), "accessSetting.accessMode must be INSTANCE_ACCESS_MODE_PRIVATE or INSTANCE_ACCESS_MODE_PUBLIC");
	});
});
