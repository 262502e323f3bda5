import { extractMetadata } from "../../services/memos/link-metadata/extract-metadata.js";

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
