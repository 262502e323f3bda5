import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** How the provider answers the next token request. */
export type TokenMode = "json" | "form" | "reject" | "no-token" | "error" | "hang";
export type UserInfoMode = "ok" | "error" | "not-json" | "unauthorized";

export interface TokenRequest {
	contentType: string;
	accept: string;
	form: Record<string, string>;
}

/**
 * A small OAuth2 provider on a loopback port speaking the token and userinfo endpoints
 * (RFC 6749 authorization-code grant): each code maps to the claims its userinfo returns.
 */
export interface OAuth2Provider {
	url: string;
	/** Claims returned for the access token issued for a code. */
	users: Map<string, Record<string, unknown>>;
	tokenMode: TokenMode;
	userInfoMode: UserInfoMode;
	tokenRequests: TokenRequest[];
	stop(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on("data", (chunk: Buffer) => chunks.push(chunk));
		req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
		req.on("error", reject);
	});
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
	res.writeHead(status, { "Content-Type": contentType, "Content-Length": Buffer.byteLength(body) });
	res.end(body);
}

export async function startOAuth2Provider(): Promise<OAuth2Provider> {
	const hanging: ServerResponse[] = [];
	const provider: OAuth2Provider = {
		url: "",
		users: new Map(),
		tokenMode: "json",
		userInfoMode: "ok",
		tokenRequests: [],
		stop: async () => undefined
	};
	const server: Server = createServer(async (req, res) => {
		const path = (req.url ?? "/").split("?")[0];
		if (req.method === "POST" && path === "/token") {
			const form = Object.fromEntries(new URLSearchParams(await readBody(req)));
			provider.tokenRequests.push({ contentType: req.headers["content-type"] ?? "", accept: req.headers.accept ?? "", form });
			const token = `token-${form.code ?? ""}`;
			switch (provider.tokenMode) {
				case "json":
					return send(res, 200, "application/json", JSON.stringify({ access_token: token, token_type: "bearer", scope: "profile" }));
				case "form":
					return send(res, 200, "application/x-www-form-urlencoded", new URLSearchParams({ access_token: token, token_type: "bearer" }).toString());
				case "reject":
					return send(res, 400, "application/json", JSON.stringify({ error: "invalid_grant" }));
				case "no-token":
					return send(res, 200, "application/json", JSON.stringify({ error: "bad_verification_code" }));
				case "error":
					return send(res, 502, "text/plain", "bad gateway");
				case "hang":
					hanging.push(res);
					return;
			}
		}
		if (req.method === "GET" && path === "/userinfo") {
			const code = /^Bearer token-(.*)$/.exec(req.headers.authorization ?? "")?.[1];
			const claims = code === undefined ? undefined : provider.users.get(code);
			if (provider.userInfoMode === "error") return send(res, 500, "text/plain", "oops");
			if (provider.userInfoMode === "not-json") return send(res, 200, "text/html", "<html></html>");
			if (provider.userInfoMode === "unauthorized" || !claims) return send(res, 401, "application/json", JSON.stringify({ error: "invalid_token" }));
			return send(res, 200, "application/json", JSON.stringify(claims));
		}
		send(res, 404, "text/plain", "not found");
	});
	await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
	provider.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	provider.stop = async () => {
		for (const res of hanging) res.destroy();
		server.closeAllConnections();
		await new Promise<void>(resolve => server.close(() => resolve()));
	};
	return provider;
}

/** A CreateIdentityProvider body for an OAuth2 provider on `provider` (claims `sub`, `name`, `email`, `picture`). */
export function identityProviderBody(provider: OAuth2Provider, id: string): Record<string, unknown> {
	return {
		type: "OAUTH2",
		title: `Provider ${id}`,
		config: {
			oauth2Config: {
				clientId: "memos-client",
				clientSecret: "s3cret-of-memos",
				authUrl: `${provider.url}/authorize`,
				tokenUrl: `${provider.url}/token`,
				userInfoUrl: `${provider.url}/userinfo`,
				scopes: ["profile"],
				fieldMapping: { identifier: "sub", displayName: "name", email: "email", avatarUrl: "picture" }
			}
		}
	};
}
