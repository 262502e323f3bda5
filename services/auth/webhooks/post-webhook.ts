import type { IncomingMessage } from "node:http";
import { GuardedRequestFailed, guardedRequest, readAtMost } from "../../../shared/net/guarded-request.js";

/**
 * One delivery attempt over HTTP (contract 17): a POST of the signed JSON body, every hop's
 * host resolved and checked by the request-forgery guard of 7.12 and connected to at the checked
 * address, at most 10 redirects (307 and 308 repeat the POST; 301, 302 and 303 continue with a
 * GET, as Go's client does for upstream), all within the attempt's time-out. A 2xx answer ends
 * the delivery; anything else is a failure to retry.
 */

export interface PostLimits {
	timeoutMs: number;
	/** Which resolved addresses may be connected to (shared/net/address-guard.ts). */
	allowedAddress: (address: string) => boolean;
}

const MAX_REDIRECTS = 10;
/** Answers are read (and dropped) up to this size, so that a connection is not left half-read. */
const MAX_ANSWER_BYTES = 1024 * 1024;
const USER_AGENT = "memos-webhook/1.0";

export type PostOutcome = { ok: true; status: number } | { ok: false; reason: string };

/** POSTs `body` with `headers` to `rawUrl`; never throws: the outcome says what happened, without secrets. */
export async function postWebhook(rawUrl: string, headers: Record<string, string>, body: string, limits: PostLimits): Promise<PostOutcome> {
	const signal = AbortSignal.timeout(limits.timeoutMs);
	let response: IncomingMessage | undefined;
	try {
		({ response } = await guardedRequest(rawUrl, {
			headers: { "User-Agent": USER_AGENT },
			body: { text: body, headers: { ...headers, "Content-Type": "application/json" } },
			maxRedirects: MAX_REDIRECTS,
			allowedAddress: limits.allowedAddress,
			signal
		}));
		const status = response.statusCode ?? 0;
		await readAtMost(response, MAX_ANSWER_BYTES);
		return status >= 200 && status <= 299 ? { ok: true, status } : { ok: false, reason: `HTTP ${status}` };
	} catch (err) {
		if (err instanceof GuardedRequestFailed) return { ok: false, reason: err.message };
		return { ok: false, reason: signal.aborted ? "timed out" : `request failed (${err instanceof Error && "code" in err ? String(err.code) : "network error"})` };
	} finally {
		response?.destroy();
	}
}
