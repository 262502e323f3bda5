import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { pinnedLookup, resolveChecked, untilAborted, type CheckedAddress } from "./address-guard.js";

/**
 * An outgoing HTTP request under the request-forgery guard of contract 7.12, for webhook
 * deliveries and link metadata: every hop's host resolved and checked (resolveChecked) and
 * connected to at the checked address, so a redirect cannot lead to a refused address.
 */

export interface GuardedRequest {
	/** Sent on every hop. */
	headers: Record<string, string>;
	/**
	 * A POST body and the headers that go with it; none: a GET. 307 and 308 repeat the POST;
	 * 301, 302 and 303 continue with a GET without the body or these headers, as Go's client
	 * does for upstream.
	 */
	body?: { text: string; headers: Record<string, string> };
	maxRedirects: number;
	/** Which resolved addresses may be connected to (address-guard.ts). */
	allowedAddress: (address: string) => boolean;
	/** The caller's time-out, which also covers reading the answer. */
	signal: AbortSignal;
}

/** Why a request stopped before an answer: refused address, redirect limit, bad redirect, time-out in a lookup. Safe to show. */
export class GuardedRequestFailed extends Error {}

export interface GuardedAnswer {
	/** The URL that answered, after redirects. */
	url: URL;
	response: IncomingMessage;
}

function send(url: URL, checked: CheckedAddress, request: GuardedRequest, body: GuardedRequest["body"]): Promise<IncomingMessage> {
	const client = url.protocol === "https:" ? https : http;
	return new Promise((resolve, reject) => {
		const outgoing = client.request(url, {
			method: body === undefined ? "GET" : "POST",
			headers: body === undefined ? request.headers : { ...request.headers, ...body.headers, "Content-Length": String(Buffer.byteLength(body.text)) },
			lookup: pinnedLookup(checked),
			agent: false,
			signal: request.signal
		});
		outgoing.once("response", resolve);
		outgoing.once("error", reject);
		outgoing.end(body?.text);
	});
}

/**
 * Sends `request` to `rawUrl` and follows at most `maxRedirects` redirects; the answer that is
 * not a redirect is returned unread, for the caller to read and destroy. Network errors and
 * the signal's abort are thrown as they come.
 */
export async function guardedRequest(rawUrl: string, request: GuardedRequest): Promise<GuardedAnswer> {
	let url = new URL(rawUrl);
	let body = request.body;
	for (let redirects = 0; ; redirects++) {
		if (url.protocol !== "http:" && url.protocol !== "https:") throw new GuardedRequestFailed("redirected to a URL that is not http or https");
		let checked: CheckedAddress;
		try {
			checked = await untilAborted(resolveChecked(url.hostname, request.allowedAddress), request.signal, () => new GuardedRequestFailed("timed out"));
		} catch (err) {
			throw new GuardedRequestFailed(err instanceof Error ? err.message : "address refused");
		}
		if (request.signal.aborted) throw new GuardedRequestFailed("timed out");
		const response = await send(url, checked, request, body);
		const status = response.statusCode ?? 0;
		const location = response.headers.location;
		if (status < 300 || status >= 400 || location === undefined) return { url, response };
		response.destroy();
		if (redirects >= request.maxRedirects) throw new GuardedRequestFailed("too many redirects");
		const next = URL.parse(location, url.href);
		if (next === null) throw new GuardedRequestFailed("invalid redirect location");
		url = next;
		if (status !== 307 && status !== 308) body = undefined;
	}
}

/** The answer's body up to `maxBytes` (a longer one is cut there); the response is destroyed after, so no connection is left half-read. */
export async function readAtMost(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of response as AsyncIterable<Buffer>) {
		chunks.push(chunk);
		size += chunk.length;
		if (size >= maxBytes) break;
	}
	response.destroy();
	return Buffer.concat(chunks).subarray(0, maxBytes);
}
