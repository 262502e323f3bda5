import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { BoundedCache } from "../../shared/cache/bounded-cache.js";
import { notFound } from "../../shared/errors.js";
import { buildOpenApi } from "./openapi.js";
import { ROUTE_TABLE } from "./route-table.js";

/**
 * `GET /openapi.json` and the API reference page `GET /api-docs`, rendered by Swagger UI from
 * the installed `swagger-ui-dist` package: every file comes from this server, none from a CDN.
 */

type Next = (err?: unknown) => void;
type AliasRequest = IncomingMessage & { $params?: Record<string, unknown> };

let openApiText: string | undefined;

export function openApiAlias(_req: IncomingMessage, res: ServerResponse): void {
	// The route table is fixed for the life of the process.
	openApiText ??= JSON.stringify(buildOpenApi(ROUTE_TABLE));
	res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(openApiText), "Cache-Control": "no-cache" });
	res.end(openApiText);
}

const ASSET_DIR = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/** The only files served from the package: a fixed list, so no request names a path of its own. */
const ASSETS: Record<string, string> = {
	"swagger-ui.css": "text/css; charset=utf-8",
	"swagger-ui-bundle.js": "text/javascript; charset=utf-8",
	"favicon-32x32.png": "image/png",
	"favicon-16x16.png": "image/png"
};

const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
	url: "/openapi.json",
	dom_id: "#swagger-ui",
	deepLinking: true,
	displayOperationId: true,
	validatorUrl: null,
	presets: [SwaggerUIBundle.presets.apis],
	layout: "BaseLayout"
});
`;

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Memos API reference</title>
<link rel="stylesheet" href="/api-docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/api-docs/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="/api-docs/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api-docs/swagger-ui-bundle.js"></script>
<script src="/api-docs/init.js"></script>
</body>
</html>
`;

// Swagger UI sets inline styles; everything else it needs comes from this origin.
const PAGE_HEADERS = {
	"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
	"X-Content-Type-Options": "nosniff"
};

function send(res: ServerResponse, type: string, body: string | Buffer, cache: string): void {
	res.writeHead(200, { "Content-Type": type, "Content-Length": Buffer.byteLength(body), "Cache-Control": cache, ...PAGE_HEADERS });
	res.end(body);
}

export function apiDocsPageAlias(_req: IncomingMessage, res: ServerResponse): void {
	send(res, "text/html; charset=utf-8", PAGE, "no-cache");
}

// The files come with the installed package and do not change while the process runs.
const assetCache = new BoundedCache<string, Promise<Buffer>>({ ttlMs: Infinity, maxEntries: Object.keys(ASSETS).length });

export function apiDocsAssetAlias(req: AliasRequest, res: ServerResponse, next: Next): void {
	const file = req.$params?.file;
	if (file === "init.js") return send(res, "text/javascript; charset=utf-8", INIT_SCRIPT, "no-cache");
	if (typeof file !== "string" || !Object.hasOwn(ASSETS, file)) return next(notFound("Not Found"));
	assetCache.getOrLoad(file, () => readFile(path.join(ASSET_DIR, file))).then(
		body => send(res, ASSETS[file] as string, body, "public, max-age=86400"),
		err => next(err)
	);
}
