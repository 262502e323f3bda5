import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { Readable, pipeline } from "node:stream";
import type { Context, ServiceBroker } from "moleculer";
import type { Caller, RequestMeta } from "../../shared/caller.js";
import { call } from "../../shared/contract.js";
import { unauthenticated } from "../../shared/errors.js";
import { readRefreshCookie } from "../../shared/refresh-cookie.js";
import { attachmentsActions } from "../attachments/attachments.contract.js";
import { authActions } from "../auth/auth.contract.js";
import { anonymousOnPrivateInstance, instanceIsPublic } from "./anonymous-access.js";
import { callerOfAuthorization } from "./bearer.js";
import { fileHeaders, notModified, readRange } from "./file-headers.js";

/**
 * `GET`/`HEAD /file/attachments/{attachment}[/{filename}]` (contract 8.5): the caller from a
 * Bearer token, else the refresh cookie (so `<img src>` works in browsers), else anonymous;
 * access and metadata from the attachments service, then the bytes streamed from it.
 */

interface GatewayLike {
	broker: ServiceBroker;
}

type FileRequest = IncomingMessage & { $ctx: Context<unknown, RequestMeta>; $params?: Record<string, unknown> };

/** The caller of a file request: a Bearer token, else the refresh cookie, else anonymous (null). */
export async function fileCaller(ctx: Context<unknown, RequestMeta>, headers: IncomingHttpHeaders): Promise<Caller | null> {
	const header = headers.authorization;
	if (header !== undefined) return callerOfAuthorization(ctx, header);
	const cookie = readRefreshCookie(headers.cookie);
	if (cookie === undefined || cookie === "") return null;
	return call(ctx, authActions.callerOfRefreshCookie, { cookie });
}

/**
 * Bytes asked of the attachments service at a time. Across NATS nothing slows a stream's
 * sender down, so what the client has not taken yet waits in the gateway's memory. The next
 * window is asked for as soon as the one before starts going out, so that the attachments node
 * reads and sends while the gateway writes (one window at a time left both idle for a round
 * trip per window), and no sooner: a download holds at most two windows (4 MiB) in the gateway
 * for a client however slow (issue 19).
 */
const WINDOW_BYTES = 2 * 1024 * 1024;

/**
 * The bytes `range` of the attachment. From an attachments service in this process, in one
 * call: its stream is the blob's own, whose reads wait for the client, so windows would only
 * pay a call, a record lookup and a file's open, stat and close per 2 MiB (a third of the
 * embedded download's CPU; issue 19). From another node, fetched a window ahead of the
 * client; the first window is asked for at once, so that its failure comes before the headers.
 */
async function windowedBytes(ctx: Context<unknown, RequestMeta>, attachment: string, range: { start: number; end: number }): Promise<Readable> {
	// Moleculer calls a local endpoint when there is one (preferLocal, broker-options.ts).
	if (ctx.broker.getLocalService(attachmentsActions.fileStream.service) !== undefined) return call(ctx, attachmentsActions.fileStream, { attachment, range });
	const windowAt = (start: number) => call(ctx, attachmentsActions.fileStream, { attachment, range: { start, end: Math.min(range.end, start + WINDOW_BYTES - 1) } });
	let current = await windowAt(range.start);
	let next: Promise<Readable> | undefined;
	const bytes = Readable.from(
		(async function* () {
			for (let start = range.start + WINDOW_BYTES; ; start += WINDOW_BYTES) {
				next = start <= range.end ? windowAt(start) : undefined;
				// Its failure is thrown where it is awaited; until then it is no unhandled rejection.
				next?.catch(() => undefined);
				yield* current;
				if (next === undefined) return;
				current = await next;
				next = undefined;
			}
		})(),
		{ objectMode: false }
	);
	// A client gone early: the window it was sent and the one asked for ahead of it are released.
	bytes.once("close", () => {
		current.destroy();
		next?.then(
			window => window.destroy(),
			() => undefined
		);
	});
	return bytes;
}

async function serveFile(req: FileRequest, res: ServerResponse): Promise<void> {
	const ctx = req.$ctx;
	const url = new URL(req.url ?? "/", "http://localhost");
	const shareToken = url.searchParams.get("share_token") ?? undefined;
	const attachment = String(req.$params?.attachment ?? "");
	ctx.meta.requestTime = Date.now();
	ctx.meta.user = await fileCaller(ctx, req.headers);
	// Anonymous callers on a private instance learn nothing (contract 2.2), unless a share link vouches for them.
	if (shareToken === undefined && (await anonymousOnPrivateInstance(ctx))) throw unauthenticated();
	const info = await call(ctx, attachmentsActions.fileInfo, {
		attachment,
		...(shareToken === undefined ? {} : { shareToken })
	});
	const headers = fileHeaders(info, info.publicRead && (await instanceIsPublic(ctx)));
	if (notModified(req.headers["if-none-match"], headers.ETag)) {
		res.writeHead(304, { ETag: headers.ETag, "Last-Modified": headers["Last-Modified"], "Cache-Control": headers["Cache-Control"] });
		res.end();
		return;
	}
	const ifRange = req.headers["if-range"];
	const range = readRange(req.headers.range, typeof ifRange === "string" ? ifRange : undefined, info);
	if (range.kind === "unsatisfiable") {
		res.writeHead(416, { ...headers, "Content-Range": `bytes */${info.size}`, "Content-Length": 0 });
		res.end();
		return;
	}
	const partial = range.kind === "partial" ? { start: range.start, end: range.end } : undefined;
	const length = partial ? partial.end - partial.start + 1 : info.size;
	const status = partial ? 206 : 200;
	const answer: Record<string, string | number> = { ...headers, "Content-Length": length };
	if (partial) answer["Content-Range"] = `bytes ${partial.start}-${partial.end}/${info.size}`;
	if (req.method === "HEAD" || length === 0) {
		res.writeHead(status, answer);
		res.end();
		return;
	}
	const body = await windowedBytes(ctx, attachment, partial ?? { start: 0, end: info.size - 1 });
	res.writeHead(status, answer);
	// Either side ending early ends the other: a client that goes away mid-download closes the blob's file.
	pipeline(body, res, () => undefined);
}

/** The ops route's alias; failures before the first byte go to `next` and answer with the Status body. */
export function fileRouteAlias(this: GatewayLike, req: FileRequest, res: ServerResponse, next: (err?: unknown) => void): void {
	serveFile(req, res).catch(next);
}
