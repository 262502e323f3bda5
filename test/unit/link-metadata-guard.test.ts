import { isPublicAddress, resolveChecked } from "../../shared/net/address-guard.js";
import { FETCH_LIMITS, FetchFailed, fetchPage } from "../../services/memos/link-metadata/fetch-page.js";
import { startPageServer, type PageServer } from "../api/link-metadata-server.js";

describe("isPublicAddress (contract 7.12 blocked ranges)", () => {
	test.each([
		"127.0.0.1",
		"127.255.0.9",
		"10.0.0.1",
		"172.16.5.4",
		"172.31.255.255",
		"192.168.1.1",
		"169.254.169.254",
		"100.64.0.1",
		"100.127.255.254",
		"0.0.0.0",
		"0.1.2.3",
		"224.0.0.251",
		"239.255.255.250",
		"255.255.255.255",
		"240.0.0.1",
		"::1",
		"::",
		"fe80::1",
		"fc00::1",
		"fd12:3456::1",
		"ff02::1",
		"::ffff:127.0.0.1",
		"::ffff:10.0.0.1",
		"::ffff:169.254.169.254",
		"::ffff:0:7f00:1",
		"64:ff9b::a00:1",
		"2002:7f00:1::1",
		"::127.0.0.1",
		"not an address"
	])("%s is refused", address => {
		expect(isPublicAddress(address)).toBe(false);
	});

	test.each(["8.8.8.8", "93.184.216.34", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"])("%s is allowed", address => {
		expect(isPublicAddress(address)).toBe(true);
	});
});

describe("resolveChecked", () => {
	test("a host name is refused when any of its addresses is", async () => {
		await expect(resolveChecked("localhost", isPublicAddress)).rejects.toThrow("non-public");
		await expect(resolveChecked("[::1]", isPublicAddress)).rejects.toThrow("non-public");
		await expect(resolveChecked("localhost", () => true)).resolves.toMatchObject({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
	});

	test("an unresolvable host is refused", async () => {
		await expect(resolveChecked("no-such-host.invalid", () => true)).rejects.toThrow("cannot resolve");
	});
});

describe("fetchPage: every redirect is checked", () => {
	let pages: PageServer;

	beforeAll(async () => {
		pages = await startPageServer();
	});

	afterAll(async () => {
		await pages.close();
	});

	// Stands in for a public site: the test server's own address is allowed, no other non-public one.
	const allowed = (address: string) => address === "127.0.0.1" || isPublicAddress(address);
	const limits = { ...FETCH_LIMITS, allowedAddress: allowed };

	test("an allowed page is fetched", async () => {
		const page = await fetchPage(`http://127.0.0.1:${pages.port}/og`, limits);
		expect(page.html).toContain("OG &amp; title");
	});

	test.each([
		["IPv6 loopback", "http://[::1]:PORT/og"],
		["another loopback address", "http://127.0.0.2:PORT/og"],
		["an IPv4-mapped loopback", "http://[::ffff:127.0.0.1]:PORT/og"],
		["a hexadecimal loopback", "http://0x7f000002:PORT/og"],
		["the metadata address of clouds", "http://169.254.169.254/latest/meta-data/"]
	])("a redirect from an allowed page to %s is refused", async (_what, target) => {
		const to = target.replace("PORT", String(pages.port));
		const hits = pages.hits.get("/og") ?? 0;
		const attempt = fetchPage(`http://127.0.0.1:${pages.port}/to?url=${encodeURIComponent(to)}`, limits);
		await expect(attempt).rejects.toThrow(FetchFailed);
		await expect(attempt).rejects.toThrow("non-public");
		expect(pages.hits.get("/og") ?? 0).toBe(hits);
	});

	test("a redirect to another scheme is refused", async () => {
		await expect(fetchPage(`http://127.0.0.1:${pages.port}/to?url=${encodeURIComponent("file:///etc/passwd")}`, limits)).rejects.toThrow("not http");
	});
});
