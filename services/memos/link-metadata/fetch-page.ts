import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { TextDecoder } from "node:util";
import { pinnedLookup, resolveChecked, untilAborted, type CheckedAddress } from "../../../shared/net/address-guard.js";

/** The fetch limits of contract 7.12. */
export interface FetchLimits {
	timeoutMs: number;
	maxBytes: number;
	maxRedirects: number;
	/** Which resolved addresses may be connected to (address-guard.ts). */
	allowedAddress: (address: string) => boolean;
}

export const FETCH_LIMITS: Omit<FetchLimits, "allowedAddress"> = { timeoutMs: 5000, maxBytes: 512 * 1024, maxRedirects: 10 };

const USER_AGENT = "MemosBot/1.0";
const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/** Why a page could not be fetched; the message is safe to show to the client. */
export class FetchFailed extends Error {}

export interface FetchedPage {
	/** The URL the page was finally served from, after redirects. */
	url: string;
	html: string;
}

function get(url: URL, checked: CheckedAddress, signal: AbortSignal): Promise<IncomingMessage> {
	const client = url.protocol === "https:" ? https : http;
	return new Promise((resolve, reject) => {
		const request = client.get(url, {
			headers: { "User-Agent": USER_AGENT, Accept: "text/html,application/xhtml+xml" },
			lookup: pinnedLookup(checked),
			agent: false,
			signal
		});
		request.once("response", resolve);
		request.once("error", reject);
	});
}

/** The body up to `maxBytes` (a longer one is cut there), decoded with the charset the response names. */
async function readBody(response: IncomingMessage, maxBytes: number, charset: string): Promise<string> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of response as AsyncIterable<Buffer>) {
		chunks.push(chunk);
		size += chunk.length;
		if (size >= maxBytes) break;
	}
	response.destroy();
	const body = Buffer.concat(chunks).subarray(0, maxBytes);
	let decoder: TextDecoder;
	try {
		decoder = new TextDecoder(charset);
	} catch {
		decoder = new TextDecoder("utf-8");
	}
	return decoder.decode(body);
}

/**
 * One GET of `rawUrl` as contract 7.12 describes it: every hop's host resolved and checked
 * (resolveChecked) and connected to at the checked address, at most `maxRedirects`
 * redirects, `timeoutMs` for everything, at most `maxBytes` read, and an HTML answer only.
 */
export async function fetchPage(rawUrl: string, limits: FetchLimits): Promise<FetchedPage> {
	const controller = new AbortController();
	const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
	let response: IncomingMessage | undefined;
	try {
		let url = new URL(rawUrl);
		for (let redirects = 0; ; redirects++) {
			if (url.protocol !== "http:" && url.protocol !== "https:") throw new FetchFailed("redirected to a URL that is not http or https");
			let checked: CheckedAddress;
			try {
				checked = await untilAborted(resolveChecked(url.hostname, limits.allowedAddress), controller.signal, () => new FetchFailed("timed out"));
			} catch (err) {
				throw new FetchFailed(err instanceof Error ? err.message : "address refused");
			}
			if (controller.signal.aborted) throw new FetchFailed("timed out");
			response = await get(url, checked, controller.signal);
			const status = response.statusCode ?? 0;
			const location = response.headers.location;
			if (status >= 300 && status < 400 && location !== undefined) {
				response.destroy();
				if (redirects >= limits.maxRedirects) throw new FetchFailed("too many redirects");
				try {
					url = new URL(location, url);
				} catch {
					throw new FetchFailed("invalid redirect location");
				}
				continue;
			}
			if (status < 200 || status > 299) throw new FetchFailed(`the page answered HTTP ${status}`);
			const [mediaType = "", ...parameters] = (response.headers["content-type"] ?? "").split(";");
			if (!HTML_TYPES.has(mediaType.trim().toLowerCase())) throw new FetchFailed("the page is not HTML");
			const charset = parameters.map(p => p.trim().split("=")).find(([key]) => key.toLowerCase() === "charset")?.[1]?.replace(/"/g, "") ?? "utf-8";
			return { url: url.href, html: await readBody(response, limits.maxBytes, charset) };
		}
	} catch (err) {
		if (err instanceof FetchFailed) throw err;
		throw new FetchFailed(controller.signal.aborted ? "timed out" : "the page could not be fetched");
	} finally {
		clearTimeout(timer);
		response?.destroy();
	}
}
