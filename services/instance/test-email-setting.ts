import type { Caller } from "../../shared/caller.js";
import { fieldOf, stringOf } from "../../shared/request-message.js";
import type { InstanceDeps } from "./instance-deps.js";
import { requireAdmin } from "./setting-access.js";
import { parseEmailSetting, type SettingValue } from "./setting-json.js";
import { checkRecipient, resolveSmtpSettings, sendTestEmail } from "./test-email.js";

/**
 * TestInstanceEmailSetting (contract 11.5): the given e-mail setting, completed by the stored
 * one, sends a test message to the recipient (the caller when none is given); nothing is stored.
 */
export async function testEmailSetting(deps: InstanceDeps, params: { email?: unknown; recipientEmail?: unknown }, caller: Caller | null | undefined): Promise<void> {
	requireAdmin(caller, "test the e-mail settings");
	const email = fieldOf(params, "email");
	const given = email === undefined ? undefined : parseEmailSetting(email);
	const stored = (await deps.store.stored("NOTIFICATION"))?.email as SettingValue | undefined;
	const smtp = resolveSmtpSettings(given, stored);
	const recipientEmail = stringOf(fieldOf(params, "recipientEmail"), "recipientEmail").trim();
	const recipient = checkRecipient(recipientEmail || (await deps.peers.callerEmail()));
	await sendTestEmail(smtp, recipient, deps.testEmailTimeoutMs);
}
