import type { IncomingMessage } from "node:http";
import { clientAddressOf } from "../../services/gateway/client-address.js";

function request(peer: string, forwardedFor?: string): IncomingMessage {
	return { socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor } } as unknown as IncomingMessage;
}

describe("the client address of a request (TRUSTED_PROXIES)", () => {
	test("is the peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
		expect(clientAddressOf(request("198.51.100.4", "203.0.113.9"), [])).toBe("198.51.100.4");
		expect(clientAddressOf(request("::ffff:198.51.100.4"), [])).toBe("198.51.100.4");
	});

	test("is the rightmost hop that is no trusted proxy when the peer is one", () => {
		const proxies = ["10.0.0.0/8", "fd00::/8"];
		expect(clientAddressOf(request("10.1.2.3", "203.0.113.9"), proxies)).toBe("203.0.113.9");
		// The client's own X-Forwarded-For sits left of what the proxies appended: never believed.
		expect(clientAddressOf(request("::ffff:10.1.2.3", "1.1.1.1, 203.0.113.9, 10.9.9.9"), proxies)).toBe("203.0.113.9");
		expect(clientAddressOf(request("fd00::1", "2001:db8::5"), proxies)).toBe("2001:db8::5");
		// Nothing forwarded, or only proxies: the furthest proxy.
		expect(clientAddressOf(request("10.1.2.3"), proxies)).toBe("10.1.2.3");
		expect(clientAddressOf(request("10.1.2.3", "10.0.0.9"), proxies)).toBe("10.0.0.9");
	});

	test("is the peer when the peer is not a trusted proxy", () => {
		expect(clientAddressOf(request("198.51.100.4", "203.0.113.9"), ["10.0.0.0/8"])).toBe("198.51.100.4");
	});
});
