import { invalidArgument } from "../../../shared/errors.js";
import { requiredHttpUrl } from "../../../shared/free-form.js";
import { AddressRefused, resolveChecked } from "../../../shared/net/address-guard.js";

/**
 * A webhook `url` (contracts 17, 19): trimmed, required, at most 2048 bytes, http or https,
 * and its host resolving to allowed addresses only (the request-forgery guard of 7.12, checked
 * again at every delivery and redirect, since a name may resolve elsewhere later).
 */
export async function parseWebhookUrl(raw: unknown, field: string, allowedAddress: (address: string) => boolean): Promise<string> {
	const { text, url } = requiredHttpUrl(raw ?? "", field);
	try {
		await resolveChecked(url.hostname, allowedAddress);
	} catch (err) {
		if (err instanceof AddressRefused) throw invalidArgument(`${field}: ${err.message}`);
		throw err;
	}
	return text;
}
