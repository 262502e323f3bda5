import type { EmbeddedApp } from "../support/embedded-app.js";
import { startPopulatedApp, type Population, type Session } from "../support/users.js";
import { memoClient } from "../support/memos-client.js";
import { startPageServer, type PageServer } from "./link-metadata-server.js";

type LinkMetadata = { url: string; title: string; description: string; image: string };

let pages: PageServer;
/** The default instance: the request forgery guard refuses every loopback page. */
let guarded: EmbeddedApp & Population;
/** LINK_METADATA_ALLOW_PRIVATE_NETWORKS=true, so the loopback page server can be fetched. */
let open: EmbeddedApp & Population;

beforeAll(async () => {
	pages = await startPageServer();
	guarded = await startPopulatedApp(1);
	open = await startPopulatedApp(1, { LINK_METADATA_ALLOW_PRIVATE_NETWORKS: "true" });
});

afterAll(async () => {
	await Promise.all([guarded?.stop(), open?.stop()]);
	await pages?.close();
});

const page = (path: string) => `http://127.0.0.1:${pages.port}${path}`;

function getLink(app: EmbeddedApp & Population, url: string, as: Session | null = app.users[0]) {
	return memoClient(app.baseUrl).request<LinkMetadata & { code?: number }>("GET", "/memos/-/linkMetadata", { as, query: { url } });
}

function batch(app: EmbeddedApp & Population, body: unknown, as: Session | null = app.users[0]) {
	return memoClient(app.baseUrl).request<{ linkMetadata: LinkMetadata[]; code?: number }>("POST", "/memos/-/linkMetadata:batchGet", { as, body });
}

function expectInvalid(res: { status: number; body: unknown }): void {
	expect({ status: res.status, code: (res.body as { code?: number } | undefined)?.code }).toEqual({ status: 400, code: 3 });
}

describe("GetLinkMetadata extraction (contract 7.12)", () => {
	test("Open Graph first, entities decoded, whitespace collapsed, relative image made absolute", async () => {
		const res = await getLink(open, `  ${page("/og")} `);
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ url: `  ${page("/og")} `, title: "OG & title", description: "OG description", image: page("/img/cover.png") });
	});

	test("Twitter cards, then <title> and meta description; images only as http(s)", async () => {
		expect((await getLink(open, page("/twitter"))).body).toMatchObject({
			title: "Twitter title",
			description: "Twitter description",
			image: "https://cdn.example.com/t.jpg"
		});
		expect((await getLink(open, page("/plain"))).body).toMatchObject({ title: "The plain title", description: "Just a page", image: "" });
		expect((await getLink(open, page("/empty"))).body).toEqual({ url: page("/empty"), title: "", description: "", image: "" });
		expect((await getLink(open, page("/xhtml"))).body).toMatchObject({ title: "XHTML page" });
		expect((await getLink(open, page("/latin1"))).body).toMatchObject({ title: "café" });
	});

	test("title 200 and description 300 characters at most; an image URL over 2048 bytes is dropped", async () => {
		const res = await getLink(open, page("/long"));
		expect(res.body).toMatchObject({ title: "t".repeat(200), description: "d".repeat(300), image: "" });
	});

	test("redirects are followed up to 10", async () => {
		expect((await getLink(open, page("/redirect/10"))).body).toMatchObject({ title: "OG & title", image: page("/img/cover.png") });
		expectInvalid(await getLink(open, page("/redirect/11")));
	});

	test("binary files, error statuses and endless binary bodies are INVALID_ARGUMENT; an endless page is read up to 512 KiB", async () => {
		for (const path of ["/binary", "/image", "/missing", "/endless-binary"]) expectInvalid(await getLink(open, page(path)));
		expect((await getLink(open, page("/endless-html"))).body).toMatchObject({ title: "Endless" });
	});

	test("a page of exactly 512 KiB is read to its last byte", async () => {
		const head = "<html><head><title>At the limit</title><!--";
		const tail = '--><meta name="description" content="last tag">';
		pages.setPage("/at-limit", head + " ".repeat(512 * 1024 - head.length - tail.length) + tail);
		expect((await getLink(open, page("/at-limit"))).body).toMatchObject({ title: "At the limit", description: "last tag" });
	});

	test("a page that stops sending is given up after the time limit", async () => {
		expectInvalid(await getLink(open, page("/stall")));
	}, 60_000);

	test("successes are cached, and so are failures (for a while)", async () => {
		pages.setPage("/cached", "<title>first</title>");
		expect((await getLink(open, page("/cached"))).body.title).toBe("first");
		pages.setPage("/cached", "<title>second</title>");
		expect((await getLink(open, page("/cached"))).body.title).toBe("first");
		expect(pages.hits.get("/cached")).toBe(1);
		expectInvalid(await getLink(open, page("/later")));
		pages.setPage("/later", "<title>now there</title>");
		expectInvalid(await getLink(open, page("/later")));
		expect(pages.hits.get("/later")).toBe(1);
	});
});

describe("the server-side request forgery guard (contract 7.12)", () => {
	test.each([
		["a loopback page", "/og"],
		["an IPv4-mapped IPv6 loopback", "http://[::ffff:127.0.0.1]:PORT/og"],
		["a hexadecimal IPv4 loopback", "http://0x7f000001:PORT/og"],
		["a host name resolving to loopback", "http://localhost:PORT/og"],
		["IPv6 loopback", "http://[::1]:PORT/og"],
		["the unspecified address", "http://0.0.0.0:PORT/og"]
	])("%s is refused by default", async (_what, target) => {
		const url = target.startsWith("/") ? page(target) : target.replace("PORT", String(pages.port));
		const before = pages.hits.get("/og") ?? 0;
		expectInvalid(await getLink(guarded, url));
		expect(pages.hits.get("/og") ?? 0).toBe(before);
	});

	test("the same page is served when LINK_METADATA_ALLOW_PRIVATE_NETWORKS=true", async () => {
		expect((await getLink(open, `http://[::ffff:127.0.0.1]:${pages.port}/og`)).body.title).toBe("OG & title");
		expect((await getLink(open, `http://0x7f000001:${pages.port}/og`)).body.title).toBe("OG & title");
	});

	test("a redirect to a refused address is refused too", async () => {
		// The first hop is refused already on this instance; test/unit/link-metadata-fetch.test.ts
		// covers an allowed first hop redirected to loopback.
		const before = pages.hits.get("/to") ?? 0;
		expectInvalid(await getLink(guarded, page(`/to?url=${encodeURIComponent(page("/og"))}`)));
		expect(pages.hits.get("/to") ?? 0).toBe(before);
	});
});

describe("link metadata bad input (contract 7.12, 2.2)", () => {
	test.each([
		["empty", ""],
		["blank", "   "],
		["not a URL", "not a url"],
		["ftp", "ftp://example.com/file"],
		["javascript", "javascript:alert(1)"],
		["file", "file:///etc/passwd"],
		["data", "data:text/html,<title>x</title>"],
		["over 2048 bytes", `http://example.com/${"a".repeat(2040)}`]
	])("%s: INVALID_ARGUMENT", async (_what, url) => {
		expectInvalid(await getLink(open, url));
	});

	test("a URL of exactly 2048 bytes is accepted, one more byte refused", async () => {
		const sized = (bytes: number) => {
			const base = `${page("/og")}?pad=`;
			return base + "p".repeat(bytes - base.length);
		};
		const res = await getLink(open, sized(2048));
		expect({ status: res.status, title: res.body.title }).toEqual({ status: 200, title: "OG & title" });
		expectInvalid(await getLink(open, sized(2049)));
	});

	test("a missing url is INVALID_ARGUMENT", async () => {
		expectInvalid(await memoClient(open.baseUrl).request("GET", "/memos/-/linkMetadata", { as: open.users[0] }));
	});

	test("anonymous callers get UNAUTHENTICATED on a private instance, before validation", async () => {
		const res = await getLink(open, "", null);
		expect(res.status).toBe(401);
		expect((await batch(open, { urls: [] }, null)).status).toBe(401);
	});
});

describe("BatchGetLinkMetadata (contract 7.12)", () => {
	test("answers in input order", async () => {
		const res = await batch(open, { urls: [page("/twitter"), page("/og"), page("/twitter")] });
		expect(res.status).toBe(200);
		expect(res.body.linkMetadata.map(m => [m.url, m.title])).toEqual([
			[page("/twitter"), "Twitter title"],
			[page("/og"), "OG & title"],
			[page("/twitter"), "Twitter title"]
		]);
	});

	test("1-10 URLs; one failure fails the whole call", async () => {
		for (const body of [{}, { urls: [] }, { urls: Array.from({ length: 11 }, () => page("/og")) }, { urls: page("/og") }, { urls: [42] }, { urls: [page("/og"), "ftp://x"] }]) {
			expectInvalid(await batch(open, body));
		}
		expect((await batch(open, { urls: Array.from({ length: 10 }, () => page("/og")) })).status).toBe(200);
		expectInvalid(await batch(open, { urls: [page("/og"), page("/binary")] }));
		expectInvalid(await batch(guarded, { urls: [page("/og")] }));
	});
});
