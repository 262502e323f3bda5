import { parseHttpUrl, requiredHttpUrl } from "../../shared/free-form.js";
import { expectInvalidArgument } from "../support/service-errors.js";

/** The one http(s) URL check behind webhook, link metadata, external link, avatar, provider and IdP URLs. */

describe("parseHttpUrl", () => {
	test("absolute http and https URLs parse, with their host", () => {
		expect(parseHttpUrl("https://example.com/a?b=1")?.hostname).toBe("example.com");
		expect(parseHttpUrl("HTTP://Example.COM")?.href).toBe("http://example.com/");
	});

	test("text that does not parse, other schemes and a missing host are null", () => {
		for (const bad of ["", "not a url", "/relative", "ftp://example.com/a", "file:///etc/passwd", "javascript:alert(1)", "http://", "http://:80/"]) {
			expect({ bad, url: parseHttpUrl(bad) }).toEqual({ bad, url: null });
		}
	});

	test("a relative reference resolves against the base; the result must still be http(s)", () => {
		expect(parseHttpUrl("//cdn.example.com/a.png", "https://example.com/post")?.href).toBe("https://cdn.example.com/a.png");
		expect(parseHttpUrl("img/a.png", "https://example.com/post/1")?.href).toBe("https://example.com/post/img/a.png");
		expect(parseHttpUrl("data:image/png;base64,AAAA", "https://example.com/")).toBeNull();
	});
});

describe("requiredHttpUrl", () => {
	test("trims the text and returns it with its parsed form", () => {
		const { text, url } = requiredHttpUrl("  https://example.com/x  ", "f");
		expect(text).toBe("https://example.com/x");
		expect(url.pathname).toBe("/x");
	});

	test("each refusal names the field and what is wrong", () => {
		expectInvalidArgument(() => requiredHttpUrl(7, "f"), "f must be a string");
		expectInvalidArgument(() => requiredHttpUrl("   ", "f"), "f is required");
		expectInvalidArgument(() => requiredHttpUrl("not a url", "f"), "f is not a valid URL");
		expectInvalidArgument(() => requiredHttpUrl("ftp://example.com/", "f"), "f must be an http or https URL");
		expectInvalidArgument(() => requiredHttpUrl(`https://example.com/${"a".repeat(2029)}`, "f"), "f must be at most 2048 bytes");
	});

	test("2048 bytes is the limit", () => {
		const url = `https://example.com/${"a".repeat(2048 - "https://example.com/".length)}`;
		expect(requiredHttpUrl(url, "f").text).toBe(url);
	});
});
