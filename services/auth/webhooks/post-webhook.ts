import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { pinnedLookup, resolveChecked, untilAborted, type CheckedAddress } from "../../../shared/net/address-guard.js";

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

class AttemptFailed extends Error {}

function send(method: "POST" | "GET", url: URL, checked: CheckedAddress, headers: Record<string, string>, body: string | null, signal: AbortSignal): Promise<IncomingMessage> {
	const client = url.protocol === "https:" ? https : http;
	return new Promise((resolve, reject) => {
		const request = client.request(url, {
			method,
			headers: body === null ? { "User-Agent": USER_AGENT } : { ...headers, "User-Agent": USER_AGENT, "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)) },
			lookup: pinnedLookup(checked),
			agent: false,
			signal
		});
		request.once("response", resolve);
		request.once("error", reject);
		request.end(body ?? undefined);
	});
}

async function drain(response: IncomingMessage): Promise<void> {
	let size = 0;
	for await (const chunk of response as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size >= MAX_ANSWER_BYTES) break;
	}
	response.destroy();
}

/** POSTs `body` with `headers` to `rawUrl`; never throws: the outcome says what happened, without secrets. */
export async function postWebhook(rawUrl: string, headers: Record<string, string>, body: string, limits: PostLimits): Promise<PostOutcome> {
	const controller = new AbortController();
	const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
	let response: IncomingMessage | undefined;
	try {
		let url = new URL(rawUrl);
		let method: "POST" | "GET" = "POST";
		for (let redirects = 0; ; redirects++) {
			if (url.protocol !== "http:" && url.protocol !== "https:") throw new AttemptFailed("redirected to a URL that is not http or https");
			let checked: CheckedAddress;
			try {
				checked = await untilAborted(resolveChecked(url.hostname, limits.allowedAddress), controller.signal, () => new AttemptFailed("timed out"));
			} catch (err) {
				throw new AttemptFailed(err instanceof Error ? err.message : "address refused");
			}
			response = await send(method, url, checked, headers, method === "POST" ? body : null, controller.signal);
			const status = response.statusCode ?? 0;
			const location = response.headers.location;
			if (status >= 300 && status < 400 && location !== undefined) {
				response.destroy();
				if (redirects >= MAX_REDIRECTS) throw new AttemptFailed("too many redirects");
				try {
					url = new URL(location, url);
				} catch {
					throw new AttemptFailed("invalid redirect location");
				}
				if (status !== 307 && status !== 308) method = "GET";
				continue;
			}
			await drain(response);
			return status >= 200 && status <= 299 ? { ok: true, status } : { ok: false, reason: `HTTP ${status}` };
		}
	} catch (err) {
		if (err instanceof AttemptFailed) return { ok: false, reason: err.message };
		return { ok: false, reason: controller.signal.aborted ? "timed out" : `request failed (${err instanceof Error && "code" in err ? String(err.code) : "network error"})` };
	} finally {
		clearTimeout(timer);
		response?.destroy();
	}
}
