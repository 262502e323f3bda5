import { createHmac, randomBytes } from "node:crypto";
import { invalidArgument } from "../../../shared/errors.js";

/**
 * Webhook signing as upstream memos v0.30.0 does it (internal/webhook), the Standard Webhooks
 * scheme: secrets look like `whsec_<base64 of 32 random bytes>`; a delivery carries
 * `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256>` over
 * `<id>.<timestamp>.<raw body>`.
 */

const PREFIX = "whsec_";
const SECRET_BYTES = 32;
const MAX_SECRET_LENGTH = 256;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function generateSigningSecret(): string {
	return PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

/** The HMAC key of a secret: a `whsec_` secret's decoded bytes, any other secret's own bytes. */
export function signingKey(secret: string): Buffer {
	return secret.startsWith(PREFIX) ? Buffer.from(secret.slice(PREFIX.length), "base64") : Buffer.from(secret, "utf8");
}

/** A client-given secret, trimmed: printable ASCII only (it would corrupt no header), and a `whsec_` one valid base64 (upstream ValidateSigningSecret). */
export function parseSigningSecret(raw: unknown, field: string): string {
	if (raw === undefined || raw === null) return "";
	if (typeof raw !== "string") throw invalidArgument(`${field} must be a string`);
	const secret = raw.trim();
	if (secret.length > MAX_SECRET_LENGTH) throw invalidArgument(`${field} must be at most ${MAX_SECRET_LENGTH} characters`);
	if (!/^[\x20-\x7e]*$/.test(secret)) throw invalidArgument(`${field} contains a character that is not printable ASCII`);
	if (secret.startsWith(PREFIX) && (!BASE64.test(secret.slice(PREFIX.length)) || secret.length === PREFIX.length)) {
		throw invalidArgument(`${field} has the whsec_ prefix but is not valid base64`);
	}
	return secret;
}

/** The headers that sign `body` for the delivery `messageId` at `timestampSeconds`. */
export function signatureHeaders(secret: string, messageId: string, timestampSeconds: number, body: string): Record<string, string> {
	const timestamp = String(timestampSeconds);
	const signature = createHmac("sha256", signingKey(secret)).update(`${messageId}.${timestamp}.`).update(body).digest("base64");
	return { "webhook-id": messageId, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` };
}
