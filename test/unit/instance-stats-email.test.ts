import { ownerCounters, toStatsJson } from "../../services/instance/stats.js";
import { checkRecipient, resolveSmtpSettings } from "../../services/instance/test-email.js";
import { thrownServiceError } from "../support/service-errors.js";

describe("InstanceStats (contract 4.11)", () => {
	test("each owner contributes only its own counters", () => {
		expect(ownerCounters("auth", { userCount: 3, memoCount: 99 })).toEqual({ userCount: 3 });
		expect(ownerCounters("attachments", { attachmentCount: "4", attachmentBytes: 0, localStorageBytes: -1 })).toEqual({ attachmentCount: 4, attachmentBytes: 0, localStorageBytes: -1 });
	});

	test("an owner's answer lacking a counter, or holding a non-integer, is INTERNAL, never 0", () => {
		for (const answer of [null, {}, { memoCount: 1.5 }, { memoCount: "many" }, { memoCount: null }]) {
			const err = thrownServiceError(() => ownerCounters("memos", answer));
			expect({ type: err.type, message: err.message }).toEqual({ type: "INTERNAL", message: "instance stats: memos.stats answered no integer memoCount" });
		}
		expect(thrownServiceError(() => ownerCounters("attachments", { attachmentCount: 1, attachmentBytes: 1 })).message).toBe("instance stats: attachments.stats answered no integer localStorageBytes");
	});

	test("64-bit figures are strings, counts numbers", () => {
		const counters = { userCount: 2, memoCount: 4210, attachmentCount: 310, attachmentBytes: 918552112, localStorageBytes: -1, spaceCount: 4 };
		expect(toStatsJson(counters, { driver: "mongodb", sizeBytes: 73400320 }, Date.UTC(2025, 2, 1, 10))).toEqual({
			database: { driver: "mongodb", sizeBytes: "73400320" },
			localStorageBytes: "-1",
			generatedTime: "2025-03-01T10:00:00.000Z",
			userCount: 2,
			memoCount: 4210,
			attachmentCount: 310,
			attachmentBytes: "918552112",
			spaceCount: 4
		});
	});
});

describe("TestInstanceEmailSetting inputs (contract 11.5)", () => {
	const stored = { smtpHost: "smtp.example.com", smtpPort: 587, smtpUsername: "memos", smtpPassword: "stored-pw", fromEmail: "memos@example.com", fromName: "", replyTo: "", useTls: true, useSsl: false, enabled: true };

	test("no email given: the stored setting with its password", () => {
		expect(resolveSmtpSettings(undefined, stored)).toMatchObject({ smtpHost: "smtp.example.com", smtpPassword: "stored-pw" });
	});

	test("an empty password uses the stored one only while the server identity is unchanged", () => {
		expect(resolveSmtpSettings({ ...stored, smtpPassword: "" }, stored).smtpPassword).toBe("stored-pw");
		expect(thrownServiceError(() => resolveSmtpSettings({ ...stored, smtpPassword: "", smtpPort: 465 }, stored)).type).toBe("INVALID_ARGUMENT");
		expect(resolveSmtpSettings({ ...stored, smtpPassword: "", smtpPort: 465 }, { ...stored, smtpPassword: "" }).smtpPassword).toBe("");
	});

	test("host, port 1-65535 and fromEmail are required; enabled is not", () => {
		expect(thrownServiceError(() => resolveSmtpSettings({ ...stored, smtpHost: " " }, undefined)).type).toBe("INVALID_ARGUMENT");
		expect(thrownServiceError(() => resolveSmtpSettings({ ...stored, smtpPort: 0 }, undefined)).type).toBe("INVALID_ARGUMENT");
		expect(thrownServiceError(() => resolveSmtpSettings({ ...stored, smtpPort: 65536 }, undefined)).type).toBe("INVALID_ARGUMENT");
		expect(thrownServiceError(() => resolveSmtpSettings({ ...stored, fromEmail: "" }, undefined)).type).toBe("INVALID_ARGUMENT");
		expect(thrownServiceError(() => resolveSmtpSettings(undefined, undefined)).type).toBe("INVALID_ARGUMENT");
		expect(resolveSmtpSettings({ ...stored, enabled: false }, undefined).smtpHost).toBe("smtp.example.com");
	});

	test("the recipient must be an address", () => {
		expect(checkRecipient("ops@example.com")).toBe("ops@example.com");
		expect(thrownServiceError(() => checkRecipient("")).type).toBe("INVALID_ARGUMENT");
		expect(thrownServiceError(() => checkRecipient("not an address")).type).toBe("INVALID_ARGUMENT");
	});
});
