import http, { type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A small web server on loopback with the pages the link metadata tests fetch. */
export interface PageServer {
	port: number;
	/** Requests received per path. */
	hits: Map<string, number>;
	/** Makes `path` answer `body` as text/html from now on. */
	setPage(path: string, body: string): void;
	close(): Promise<void>;
}

const html = (res: ServerResponse, body: string, type = "text/html; charset=utf-8") => {
	res.writeHead(200, { "Content-Type": type });
	res.end(body);
};

/** Streams `chunk` until the client goes away. */
function endless(res: ServerResponse, type: string, chunk: string): void {
	res.writeHead(200, { "Content-Type": type });
	const write = () => {
		while (!res.destroyed && res.write(chunk));
		if (!res.destroyed) res.once("drain", write);
	};
	write();
}

export async function startPageServer(): Promise<PageServer> {
	const hits = new Map<string, number>();
	const pages = new Map<string, string>([
		[
			"/og",
			`<!doctype html><html><head><title>Plain title</title>
			<meta property="og:title" content="OG &amp; title"><meta name="twitter:title" content="Twitter title">
			<meta property="og:description" content="  OG
			description "><meta name="description" content="Plain description">
			<meta property="og:image" content="/img/cover.png"></head><body><p>hi</p></body></html>`
		],
		[
			"/twitter",
			`<html><head><title>Plain</title><meta name="twitter:title" content="Twitter title">
			<meta name="twitter:description" content="Twitter description"><meta name="twitter:image" content="https://cdn.example.com/t.jpg"></head></html>`
		],
		["/plain", `<html><head><title> The  plain
			title </title><meta name="description" content="Just a page"><meta property="og:image" content="javascript:alert(1)"></head></html>`],
		["/long", `<html><head><title>${"t".repeat(250)}</title><meta name="description" content="${"d".repeat(350)}"><meta property="og:image" content="/${"i".repeat(2100)}"></head></html>`],
		["/empty", "<html><body>no metadata</body></html>"]
	]);
	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? "/", "http://localhost");
		hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
		const page = pages.get(url.pathname);
		if (page !== undefined) return html(res, page);
		const redirects = /^\/redirect\/(\d+)$/.exec(url.pathname);
		if (redirects !== null) {
			const left = Number(redirects[1]);
			res.writeHead(302, { Location: left > 1 ? `/redirect/${left - 1}` : "/og" });
			return res.end();
		}
		switch (url.pathname) {
			case "/to": {
				res.writeHead(301, { Location: url.searchParams.get("url") ?? "/" });
				return res.end();
			}
			case "/xhtml":
				return html(res, "<html><head><title>XHTML page</title></head></html>", "application/xhtml+xml");
			case "/latin1":
				res.writeHead(200, { "Content-Type": "text/html; charset=iso-8859-1" });
				return res.end(Buffer.from("<title>caf\xe9</title>", "latin1"));
			case "/binary":
				res.writeHead(200, { "Content-Type": "application/octet-stream" });
				return res.end(Buffer.alloc(1024, 1));
			case "/image":
				res.writeHead(200, { "Content-Type": "image/png" });
				return res.end(Buffer.from("89504e470d0a1a0a", "hex"));
			case "/endless-html":
				return endless(res, "text/html", `<html><head><title>Endless</title></head><body>${"x".repeat(16 * 1024)}`);
			case "/endless-binary":
				return endless(res, "application/octet-stream", "\0".repeat(16 * 1024));
			case "/stall":
				res.writeHead(200, { "Content-Type": "text/html" });
				return res.write("<html><head><title>Stalled");
			case "/missing":
				res.writeHead(404, { "Content-Type": "text/html" });
				return res.end("<title>Not here</title>");
			default:
				res.writeHead(404);
				return res.end();
		}
	});
	await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
	return {
		port: (server.address() as AddressInfo).port,
		hits,
		setPage: (path, body) => void pages.set(path, body),
		close: () =>
			new Promise<void>(resolve => {
				server.closeAllConnections();
				server.close(() => resolve());
			})
	};
}
