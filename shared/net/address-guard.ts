import { lookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * The server-side request forgery guard of contract 7.12. An address is allowed only when it
 * is ordinary public unicast: loopback, private, link-local, carrier-grade NAT, unspecified,
 * multicast, broadcast and reserved ranges are refused, and IPv6 forms that carry an IPv4
 * address (IPv4-mapped, IPv4-translated, NAT64, 6to4, IPv4-compatible) are judged by the
 * IPv4 address they carry.
 */
export function isPublicAddress(address: string): boolean {
	if (!ipaddr.isValid(address)) return false;
	const parsed = ipaddr.parse(address);
	if (parsed.kind() === "ipv4") return parsed.range() === "unicast";
	const v6 = parsed as ipaddr.IPv6;
	const bytes = v6.toByteArray();
	const embedded = (offset: number) => ipaddr.fromByteArray(bytes.slice(offset, offset + 4)).toString();
	switch (v6.range()) {
		case "ipv4Mapped":
		case "rfc6145":
		case "rfc6052":
			return isPublicAddress(embedded(12));
		case "6to4":
			return isPublicAddress(embedded(2));
		case "unicast":
			// ::a.b.c.d, the deprecated IPv4-compatible form, is unicast to ipaddr.js.
			return bytes.slice(0, 12).some(byte => byte !== 0) || isPublicAddress(embedded(12));
		default:
			return false;
	}
}

export interface CheckedAddress {
	address: string;
	family: 4 | 6;
}

/** Thrown when a host cannot be resolved or resolves to a refused address. */
export class AddressRefused extends Error {}

/**
 * Every address `hostname` resolves to, each checked with `allowed` (isPublicAddress, unless
 * private networks are allowed): one refused address refuses the host, since a later lookup
 * could pick it. The first address is returned so the connection goes to an address that
 * was checked, never to a second lookup's answer.
 */
export async function resolveChecked(hostname: string, allowed: (address: string) => boolean): Promise<CheckedAddress> {
	const host = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
	let addresses: { address: string; family: number }[];
	if (isIP(host) !== 0) {
		addresses = [{ address: host, family: isIP(host) }];
	} else {
		try {
			addresses = await lookup(host, { all: true, verbatim: true });
		} catch {
			throw new AddressRefused(`cannot resolve ${host}`);
		}
	}
	if (addresses.length === 0) throw new AddressRefused(`cannot resolve ${host}`);
	for (const { address } of addresses) {
		if (!allowed(address)) throw new AddressRefused(`${host} resolves to a non-public address`);
	}
	const [first] = addresses;
	return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** The guard's rule for outgoing requests: public addresses only, unless private networks are allowed (tests; contract 7.12). */
export function addressRule(allowPrivateNetworks: boolean): (address: string) => boolean {
	return allowPrivateNetworks ? () => true : isPublicAddress;
}

/** A lookup that answers the address already checked, so the socket cannot reach another one. */
export function pinnedLookup(checked: CheckedAddress): LookupFunction {
	return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
		if (options.all === true) callback(null, [{ address: checked.address, family: checked.family }]);
		else callback(null, checked.address, checked.family);
	}) as LookupFunction;
}

/** `promise`, or a rejection with `onAbort()` once `signal` aborts (a DNS lookup cannot be cancelled). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, onAbort: () => Error): Promise<T> {
	return new Promise((resolve, reject) => {
		const abort = () => reject(onAbort());
		if (signal.aborted) abort();
		signal.addEventListener("abort", abort, { once: true });
		promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
	});
}
