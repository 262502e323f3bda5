import { parseUserFilter } from "../../services/auth/list-users.js";
import { checkNewPassword } from "../../services/auth/passwords.js";
import { mapClaims } from "../../services/auth/sso.js";
import { checkAvatarUrl } from "../../services/auth/user-input.js";

const mapping = { identifier: "login", displayName: "name", email: "email", avatarUrl: "avatar_url" };

describe("SSO claim mapping (contract 2.3)", () => {
	test("maps strings; the display name falls back to the identifier", () => {
		expect(mapClaims({ login: "octo", email: "o@example.com", avatar_url: "https://a.example/o.png" }, mapping)).toEqual({
			identifier: "octo",
			displayName: "octo",
			email: "o@example.com",
			avatarUrl: "https://a.example/o.png"
		});
	});

	test("a numeric identifier becomes its decimal string; unusable optional claims are dropped", () => {
		expect(mapClaims({ login: 583231, name: ["x"], email: "nope", avatar_url: "javascript:x" }, mapping)).toEqual({ identifier: "583231", displayName: "583231", email: "", avatarUrl: "" });
	});

	test.each([[{}], [{ login: "" }], [{ login: null }], [{ login: { id: 1 } }], [{ login: Number.NaN }]])("%j lacks the identifier", claims => {
		expect(() => mapClaims(claims, mapping)).toThrow(/identifier/);
	});
});

describe("user input", () => {
	test("passwords: 1 to 72 bytes of UTF-8", () => {
		expect(checkNewPassword("a".repeat(72), "p")).toHaveLength(72);
		expect(() => checkNewPassword("a".repeat(73), "p")).toThrow(/72 bytes/);
		expect(() => checkNewPassword("😀".repeat(19), "p")).toThrow(/72 bytes/);
		expect(() => checkNewPassword("", "p")).toThrow(/required/);
	});

	test("avatar URLs: http(s) or an image data URI", () => {
		for (const ok of ["", "http://x.example/a.png", "https://x.example/a", "data:image/webp;base64,AAAA"]) expect(checkAvatarUrl(ok, "a")).toBe(ok);
		for (const bad of ["data:image/svg+xml;base64,AAAA", "data:image/png,raw", "mailto:a@b", "//x.example/a.png"]) expect(() => checkAvatarUrl(bad, "a")).toThrow();
	});

	test("the ListUsers filter accepts only username equality", () => {
		expect(parseUserFilter('username == "alice"')).toBe("alice");
		expect(parseUserFilter(" username=='bob' ")).toBe("bob");
		expect(parseUserFilter(undefined)).toBeUndefined();
		for (const bad of ['username != "a"', 'role == "ADMIN"', "username == alice", 'username == "a" && true']) expect(() => parseUserFilter(bad)).toThrow();
	});
});
