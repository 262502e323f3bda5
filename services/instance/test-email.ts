import { internal, invalidArgument } from "../../shared/errors.js";
import { resolveSmtpPassword } from "./setting-secrets.js";

/** TestInstanceEmailSetting (contract 11.5): checking the request, then one message over SMTP. */

export const TEST_EMAIL_TIMEOUT_MS = 15_000;

export interface SmtpSettings {
	smtpHost: string;
	smtpPort: number;
	smtpUsername: string;
	smtpPassword: string;
	fromEmail: string;
	fromName: string;
	replyTo: string;
	useTls: boolean;
	useSsl: boolean;
}

type Obj = Record<string, unknown>;

const text = (value: unknown) => (typeof value === "string" ? value : "");

/**
 * The SMTP settings to test: the given e-mail setting (its empty password taken from the
 * stored one under the rules of 11.4), else the stored one; the required fields checked.
 */
export function resolveSmtpSettings(given: Obj | undefined, stored: Obj | undefined): SmtpSettings {
	const email = given ?? stored ?? {};
	const password = given ? resolveSmtpPassword(given, stored) : text(email.smtpPassword);
	const settings: SmtpSettings = {
		smtpHost: text(email.smtpHost).trim(),
		smtpPort: typeof email.smtpPort === "number" ? email.smtpPort : 0,
		smtpUsername: text(email.smtpUsername),
		smtpPassword: password,
		fromEmail: text(email.fromEmail).trim(),
		fromName: text(email.fromName),
		replyTo: text(email.replyTo).trim(),
		useTls: email.useTls === true,
		useSsl: email.useSsl === true
	};
	if (settings.smtpHost === "") throw invalidArgument("email.smtpHost is required");
	if (!Number.isInteger(settings.smtpPort) || settings.smtpPort < 1 || settings.smtpPort > 65535) {
		throw invalidArgument("email.smtpPort must be between 1 and 65535");
	}
	if (settings.fromEmail === "") throw invalidArgument("email.fromEmail is required");
	return settings;
}

/**
 * Sends one short test message with `fromEmail` as envelope sender and From address.
 * Every failure (connection, TLS, authentication, delivery, time-out) is INTERNAL; its message
 * names the kind of failure only, never the settings' secrets.
 */
export async function sendTestEmail(settings: SmtpSettings, recipient: string, timeoutMs = TEST_EMAIL_TIMEOUT_MS): Promise<void> {
	// Loaded at the first test message, the only use of SMTP, rather than at every process's start.
	const { default: nodemailer } = await import("nodemailer");
	const transport = nodemailer.createTransport({
		host: settings.smtpHost,
		port: settings.smtpPort,
		secure: settings.useSsl,
		requireTLS: settings.useTls,
		// Without either flag the connection stays plain, as configured.
		ignoreTLS: !settings.useTls && !settings.useSsl,
		auth: settings.smtpUsername === "" ? undefined : { user: settings.smtpUsername, pass: settings.smtpPassword },
		connectionTimeout: timeoutMs,
		greetingTimeout: timeoutMs,
		socketTimeout: timeoutMs,
		logger: false,
		debug: false
	});
	let timer: NodeJS.Timeout | undefined;
	const deadline = new Promise<never>((_resolve, reject) => {
		timer = setTimeout(() => reject(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })), timeoutMs);
	});
	try {
		await Promise.race([
			transport.sendMail({
				envelope: { from: settings.fromEmail, to: [recipient] },
				from: { name: settings.fromName, address: settings.fromEmail },
				to: recipient,
				...(settings.replyTo === "" ? {} : { replyTo: settings.replyTo }),
				subject: "Memos test e-mail",
				text: "This is a test message from your Memos instance. Its e-mail settings work."
			}),
			deadline
		]);
	} catch (err) {
		const code = typeof (err as { code?: unknown }).code === "string" ? (err as { code: string }).code : "";
		throw internal(`sending the test e-mail failed${/^[A-Z_]{1,32}$/.test(code) ? ` (${code})` : ""}`);
	} finally {
		clearTimeout(timer);
		transport.close();
	}
}

/** The recipient (the one given, else the caller's own address: contract 11.5), checked. */
export function checkRecipient(recipient: string): string {
	if (recipient === "") throw invalidArgument("recipientEmail is required (the caller has no e-mail address)");
	if (!/^[^\s@<>",]+@[^\s@<>",]+$/.test(recipient)) throw invalidArgument("recipientEmail is not an e-mail address");
	return recipient;
}
