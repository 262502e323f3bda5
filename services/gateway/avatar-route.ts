import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context, ServiceBroker } from "moleculer";
import type { RequestMeta } from "../../shared/caller.js";
import { call } from "../../shared/contract.js";
import { unauthenticated } from "../../shared/errors.js";
import { authActions } from "../auth/auth.contract.js";
import { anonymousOnPrivateInstance } from "./anonymous-access.js";
import { notModified } from "./file-headers.js";
import { fileCaller } from "./file-route.js";

/**
 * `GET`/`HEAD /file/users/{username}/avatar` (contract 4.8): the avatar a user stored as a
 * data URI, which the User message names by this path. The caller is found as on the
 * attachment file route; access is GetUser's (contract 2.2): open to anyone signed in, and to
 * anonymous callers on public instances only.
 */

interface GatewayLike {
	broker: ServiceBroker;
}

type AvatarRequest = IncomingMessage & { $ctx: Context<unknown, RequestMeta>; $params?: Record<string, unknown> };

async function serveAvatar(req: AvatarRequest, res: ServerResponse): Promise<void> {
	const ctx = req.$ctx;
	ctx.meta.requestTime = Date.now();
	ctx.meta.user = await fileCaller(ctx, req.headers);
	if (await anonymousOnPrivateInstance(ctx)) throw unauthenticated();
	const image = await call(ctx, authActions.userAvatar, { username: String(req.$params?.username ?? "") });
	const bytes = Buffer.from(image.bytes);
	const etag = `"${createHash("sha256").update(bytes).digest("hex")}"`;
	// Avatars change in place: caches keep them only while the ETag still matches.
	const cacheControl = "private, no-cache";
	if (notModified(req.headers["if-none-match"], etag)) {
		res.writeHead(304, { ETag: etag, "Cache-Control": cacheControl });
		res.end();
		return;
	}
	res.writeHead(200, {
		"Content-Type": image.type,
		"Content-Length": bytes.length,
		ETag: etag,
		"Cache-Control": cacheControl,
		"X-Content-Type-Options": "nosniff"
	});
	res.end(req.method === "HEAD" ? undefined : bytes);
}

/** The ops route's alias; failures go to `next` and answer with the Status body. */
export function avatarRouteAlias(this: GatewayLike, req: AvatarRequest, res: ServerResponse, next: (err?: unknown) => void): void {
	serveAvatar(req, res).catch(next);
}
