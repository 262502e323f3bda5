import type { IncomingHttpHeaders } from "node:http";
import type { RequestMeta } from "./caller.js";

/** Contract 2.1; the name upstream uses. */
export const REFRESH_COOKIE = "memos_refresh";

/**
 * What the gateway passes to the operations whose route is marked `refreshCookie`, and
 * what they hand back (moleculer-web sends `$responseHeaders`, on errors too).
 */
export interface CookieMeta extends RequestMeta {
	/** The raw `memos_refresh` value of the request, unchecked. */
	refreshCookie?: string;
	/** The request arrived over TLS (at a proxy in front of us): cookies get `Secure`. */
	secureTransport?: boolean;
	$responseHeaders?: Record<string, string>;
}

/** TLS as the proxy in front of us reports it (contract 2.1). */
export function isSecureRequest(headers: IncomingHttpHeaders): boolean {
	const forwardedProto = headers["x-forwarded-proto"];
	if (typeof forwardedProto === "string" && forwardedProto.split(",")[0]?.trim().toLowerCase() === "https") return true;
	const forwarded = headers.forwarded;
	if (typeof forwarded === "string" && /(?:^|[;,\s])proto="?https"?(?:$|[;,\s])/i.test(forwarded)) return true;
	const origin = headers.origin;
	return typeof origin === "string" && origin.toLowerCase().startsWith("https://");
}

/** The first `memos_refresh` value of a Cookie header, quotes removed; not checked. */
export function readRefreshCookie(header: string | undefined): string | undefined {
	if (header === undefined) return undefined;
	for (const pair of header.split(";")) {
		const eq = pair.indexOf("=");
		if (eq < 0 || pair.slice(0, eq).trim() !== REFRESH_COOKIE) continue;
		const raw = pair.slice(eq + 1).trim();
		return raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
	}
	return undefined;
}

export function setRefreshCookie(value: string, expiresAt: number, now: number, secure: boolean): string {
	const maxAge = Math.max(0, Math.floor((expiresAt - now) / 1000));
	const expires = new Date(expiresAt).toUTCString();
	return `${REFRESH_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Expires=${expires}; Max-Age=${maxAge}${secure ? "; Secure" : ""}`;
}

export function clearRefreshCookie(secure: boolean): string {
	return `${REFRESH_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0${secure ? "; Secure" : ""}`;
}
