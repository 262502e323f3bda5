import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { OPERATION_DOCS } from "../../services/gateway/openapi-operations.js";
import { ROUTE_TABLE } from "../../services/gateway/route-table.js";
import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";

/** The API reference page in a real headless Chromium (Debian's `chromium` package). */
const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(path => existsSync(path));
if (!CHROMIUM && process.env.CI === "true") throw new Error("chromium is required in CI (apt-get install chromium)");
const describeBrowser = CHROMIUM ? describe : describe.skip;

describeBrowser("API reference page in Chromium", () => {
	let app: EmbeddedApp;
	let browser: Browser;
	let page: Page;
	const foreignRequests: string[] = [];
	const pageErrors: string[] = [];

	beforeAll(async () => {
		app = await startEmbeddedApp();
		browser = await chromium.launch({
			executablePath: CHROMIUM,
			args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
		});
		page = await browser.newPage();
		// Everything must come from the gateway: anything else is recorded and never fetched.
		await page.route("**/*", route => {
			const url = route.request().url();
			if (url.startsWith(`${app.baseUrl}/`) || url.startsWith("data:")) return route.continue();
			foreignRequests.push(url);
			return route.abort();
		});
		page.on("pageerror", err => pageErrors.push(err.message));
	}, 60000);

	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	test("renders the operations of the document, memo operations included, from local files only", async () => {
		await page.goto(`${app.baseUrl}/api-docs`);
		const profile = page.locator("#operations-InstanceService-GetInstanceProfile");
		await profile.waitFor({ timeout: 20000 });
		expect(await profile.locator(".opblock-summary-path").innerText()).toContain("/api/v1/instance/profile");
		const memos = page.locator("#operations-MemoService-ListMemos");
		await memos.waitFor();
		expect(await memos.locator(".opblock-summary-path").innerText()).toContain("/api/v1/memos");
		const memoOperations = ROUTE_TABLE.filter(spec => OPERATION_DOCS[spec.operation]?.tag === "MemoService").map(spec => spec.operation);
		expect(memoOperations.length).toBeGreaterThan(0);
		for (const operation of memoOperations) expect({ operation, shown: await page.locator(`#operations-MemoService-${operation}`).count() }).toEqual({ operation, shown: 1 });
		// Beside the table: GET and HEAD of the two attachment file paths and of the avatar path.
		expect(await page.locator(".opblock").count()).toBe(ROUTE_TABLE.length + 6);
		expect(await page.title()).toBe("Memos API reference");
		expect(foreignRequests).toEqual([]);
		expect(pageErrors).toEqual([]);
	}, 60000);

	test("an operation can be tried from the page against this gateway", async () => {
		const profile = page.locator("#operations-InstanceService-GetInstanceProfile");
		await profile.locator(".opblock-summary").first().click();
		await profile.locator("button.try-out__btn").click();
		await profile.locator("button.execute").click();
		const status = profile.locator(".live-responses-table tbody .response-col_status").first();
		await status.waitFor({ timeout: 20000 });
		expect((await status.innerText()).trim()).toBe("200");
		expect(await profile.locator(".live-responses-table").innerText()).toContain('"version": "0.0.1"');
		expect(foreignRequests).toEqual([]);
	}, 60000);
});
