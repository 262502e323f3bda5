import type { IncomingMessage } from "node:http";
import ipaddr from "ipaddr.js";

function parsed(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
	// IPv4-mapped IPv6 (`::ffff:10.0.0.1`, as dual-stack sockets report IPv4 peers) becomes IPv4.
	return ipaddr.isValid(address) ? ipaddr.process(address) : undefined;
}

function isTrusted(address: string, proxies: readonly string[]): boolean {
	const ip = parsed(address);
	if (ip === undefined) return false;
	return proxies.some(cidr => {
		const [network, bits] = ipaddr.parseCIDR(cidr);
		return network.kind() === ip.kind() && ip.match(network, bits);
	});
}

/**
 * The client's address, for limits counted per client (sign-in throttling, contract 19): the
 * connection's peer, unless the peer is a proxy of TRUSTED_PROXIES; then the `X-Forwarded-For`
 * hops are read from the right (each proxy appends the address it was called from) and the
 * first one that is no trusted proxy is the client. Entries further left are the client's own
 * say and never believed.
 */
export function clientAddressOf(req: IncomingMessage, trustedProxies: readonly string[]): string | undefined {
	const peer = req.socket.remoteAddress;
	if (peer === undefined) return undefined;
	let client = peer;
	if (isTrusted(peer, trustedProxies)) {
		const header = req.headers["x-forwarded-for"];
		const hops = (Array.isArray(header) ? header.join(",") : (header ?? "")).split(",").map(hop => hop.trim()).filter(hop => hop !== "");
		for (let i = hops.length - 1; i >= 0; i--) {
			client = hops[i] as string;
			if (!isTrusted(client, trustedProxies)) break;
		}
	}
	return parsed(client)?.toString() ?? client;
}
