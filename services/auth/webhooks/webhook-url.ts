import { invalidArgument } from "../../../shared/errors.js";
import { checkUrlLength } from "../../../shared/free-form.js";
import { AddressRefused, resolveChecked } from "../../../shared/net/address-guard.js";

/**
 * A webhook `url` (contracts 17, 19): trimmed, required, at most 2048 bytes, http or https,
 * and its host resolving to allowed addresses only (the request-forgery guard of 7.12, checked
 * again at every delivery and redirect, since a name may resolve elsewhere later).
 */
export async function parseWebhookUrl(raw: unknown, field: string, allowedAddress: (address: string) => boolean): Promise<string> {
	if (raw !== undefined && raw !== null && typeof raw !== "string") throw invalidArgument(`${field} must be a string`);
	const url = (raw ?? "").trim();
	if (url === "") throw invalidArgument(`${field} is required`);
	checkUrlLength(url, field);
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw invalidArgument(`${field} is not a valid URL`);
	}
	if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw invalidArgument(`${field} must be an http or https URL`);
	try {
		await resolveChecked(parsed.hostname, allowedAddress);
	} catch (err) {
		if (err instanceof AddressRefused) throw invalidArgument(`${field}: ${err.message}`);
		throw err;
	}
	return url;
}
