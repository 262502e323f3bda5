import type { IncomingMessage } from "node:http";
import { TextDecoder } from "node:util";
import { GuardedRequestFailed, guardedRequest, readAtMost } from "../../../shared/net/guarded-request.js";

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

/** `body` decoded with the charset the response names (UTF-8 when it names none or one unknown). */
function decode(body: Buffer, charset: string): string {
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
	const signal = AbortSignal.timeout(limits.timeoutMs);
	let response: IncomingMessage | undefined;
	try {
		let url: URL;
		({ url, response } = await guardedRequest(rawUrl, {
			headers: { "User-Agent": USER_AGENT, Accept: "text/html,application/xhtml+xml" },
			maxRedirects: limits.maxRedirects,
			allowedAddress: limits.allowedAddress,
			signal
		}));
		const status = response.statusCode ?? 0;
		if (status < 200 || status > 299) throw new FetchFailed(`the page answered HTTP ${status}`);
		const [mediaType = "", ...parameters] = (response.headers["content-type"] ?? "").split(";");
		if (!HTML_TYPES.has(mediaType.trim().toLowerCase())) throw new FetchFailed("the page is not HTML");
		const charset = parameters.map(p => p.trim().split("=")).find(([key]) => key.toLowerCase() === "charset")?.[1]?.replace(/"/g, "") ?? "utf-8";
		return { url: url.href, html: decode(await readAtMost(response, limits.maxBytes), charset) };
	} catch (err) {
		if (err instanceof FetchFailed) throw err;
		if (err instanceof GuardedRequestFailed) throw new FetchFailed(err.message);
		throw new FetchFailed(signal.aborted ? "timed out" : "the page could not be fetched");
	} finally {
		response?.destroy();
	}
}
