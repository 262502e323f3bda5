import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type Page } from "playwright-core";
import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";
import { memoClient } from "../support/memos-client.js";
import { signIn, signUp, type Session } from "../support/users.js";

/**
 * Browser preflights (contract 19) in a real headless Chromium: a page served from another
 * loopback origin (`localhost` and another port) calls the gateway on `127.0.0.1`.
 */
const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(path => existsSync(path));
if (!CHROMIUM && process.env.CI === "true") throw new Error("chromium is required in CI (apt-get install chromium)");
const describeBrowser = CHROMIUM ? describe : describe.skip;

interface PageAnswer {
	status?: number;
	error?: string;
}

/** `fetch` run by the page, so that Chromium applies its CORS rules; a blocked call rejects. */
function fetchFromPage(page: Page, url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<PageAnswer> {
	return page.evaluate(
		async ({ url, init }) => {
			try {
				const res = await fetch(url, init);
				await res.text();
				return { status: res.status };
			} catch (err) {
				return { error: String(err) };
			}
		},
		{ url, init }
	);
}

describeBrowser("cross-origin calls from a page in Chromium", () => {
	let pageServer: Server;
	let pageOrigin: string;
	let browser: Browser;

	beforeAll(async () => {
		pageServer = createServer((_req, res) => {
			res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
			res.end("<!doctype html><title>client</title>");
		});
		await new Promise<void>(resolve => pageServer.listen(0, "127.0.0.1", resolve));
		pageOrigin = `http://localhost:${(pageServer.address() as AddressInfo).port}`;
		browser = await chromium.launch({
			executablePath: CHROMIUM,
			args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
		});
	}, 60000);

	afterAll(async () => {
		await browser?.close();
		await new Promise(resolve => pageServer?.close(resolve));
	});

	async function appWith(env: Record<string, string>): Promise<{ app: EmbeddedApp; alice: Session; page: Page }> {
		const app = await startEmbeddedApp(env);
		await signUp(app.baseUrl, "alice");
		const alice = await signIn(app.baseUrl, "alice");
		const page = await browser.newPage();
		await page.goto(`${pageOrigin}/`);
		return { app, alice, page };
	}

	test("with the default CORS_ORIGINS (*), a preflighted DELETE and PATCH with a bearer token work; the preflight itself deleted nothing", async () => {
		const { app, alice, page } = await appWith({});
		try {
			const api = memoClient(app.baseUrl);
			const first = (await api.create(alice, { content: "first" })).body.name;
			const second = (await api.create(alice, { content: "second" })).body.name;
			const auth = { Authorization: `Bearer ${alice.accessToken}` };
			const patched = await fetchFromPage(page, `${app.baseUrl}/api/v1/${first}?updateMask=pinned`, {
				method: "PATCH",
				headers: { ...auth, "Content-Type": "application/json" },
				body: JSON.stringify({ pinned: true })
			});
			expect(patched).toEqual({ status: 200 });
			expect((await api.get(alice, first)).body.pinned).toBe(true);
			expect(await fetchFromPage(page, `${app.baseUrl}/api/v1/${second}`, { method: "DELETE", headers: auth })).toEqual({ status: 200 });
			expect((await api.get(alice, second)).status).toBe(404);
		} finally {
			await page.close();
			await app.stop();
		}
	}, 60000);

	test("when CORS_ORIGINS names another origin, Chromium blocks the call at the preflight and the memo survives", async () => {
		const { app, alice, page } = await appWith({ CORS_ORIGINS: "https://app.example" });
		try {
			const api = memoClient(app.baseUrl);
			const memo = (await api.create(alice, { content: "stays" })).body.name;
			const answer = await fetchFromPage(page, `${app.baseUrl}/api/v1/${memo}`, { method: "DELETE", headers: { Authorization: `Bearer ${alice.accessToken}` } });
			expect(answer.error).toContain("Failed to fetch");
			expect((await api.get(alice, memo)).status).toBe(200);
		} finally {
			await page.close();
			await app.stop();
		}
	}, 60000);
});
