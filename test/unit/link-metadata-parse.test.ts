import { extractMetadata } from "../../services/memos/link-metadata/extract-metadata.js";
import { MetadataCache } from "../../services/memos/link-metadata/metadata-cache.js";

describe("extractMetadata", () => {
	test("the first non-empty value of each source wins, in the order of contract 7.12", () => {
		const html = `<html><head>
			<meta property="og:title" content=""><meta name="twitter:title" content="Card">
			<title>Tag</title><title>Second</title>
			<meta name="DESCRIPTION" content="Meta">
			<meta name="twitter:image" content="//cdn.example.com/a.png"></head></html>`;
		expect(extractMetadata(html, "https://example.com/post/1")).toEqual({ title: "Card", description: "Meta", image: "https://cdn.example.com/a.png" });
	});

	test("a <title> inside inline SVG is not the page title; an unclosed title still counts", () => {
		expect(extractMetadata("<body><svg><title>icon</title></svg><title>Page</title>", "https://x.test/").title).toBe("Page");
		expect(extractMetadata("<title>Cut off", "https://x.test/").title).toBe("Cut off");
	});

	test("lengths are counted in characters, not bytes", () => {
		const title = "é".repeat(210);
		expect(extractMetadata(`<title>${title}</title>`, "https://x.test/").title).toBe("é".repeat(200));
	});

	test("images that are not http(s) or do not parse are dropped", () => {
		for (const image of ["data:image/png;base64,AAAA", "javascript:alert(1)", "http://[bad"]) {
			expect(extractMetadata(`<meta property="og:image" content="${image}">`, "https://x.test/").image).toBe("");
		}
	});
});

describe("MetadataCache", () => {
	test("successes and failures expire after their own time", () => {
		const cache = new MetadataCache<string>(10, 1000, 100);
		cache.success("a", "A", 0);
		cache.failure("b", "nope", 0);
		expect(cache.get("a", 999)).toEqual({ ok: true, value: "A" });
		expect(cache.get("b", 99)).toEqual({ ok: false, message: "nope" });
		expect(cache.get("b", 100)).toBeUndefined();
		expect(cache.get("a", 1000)).toBeUndefined();
	});

	test("holds at most its size, dropping the oldest entry", () => {
		const cache = new MetadataCache<number>(3);
		for (let i = 0; i < 5; i++) cache.success(`k${i}`, i, 0);
		expect(["k0", "k1", "k2", "k3", "k4"].map(key => cache.get(key, 1)?.ok ?? false)).toEqual([false, false, true, true, true]);
	});
});
