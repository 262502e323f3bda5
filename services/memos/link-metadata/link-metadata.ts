import { BoundedCache } from "../../../shared/cache/bounded-cache.js";
import { invalidArgument } from "../../../shared/errors.js";
import { requiredHttpUrl } from "../../../shared/free-form.js";
import { addressRule } from "../../../shared/net/address-guard.js";
import { extractMetadata, type PageMetadata } from "./extract-metadata.js";
import { FETCH_LIMITS, FetchFailed, fetchPage } from "./fetch-page.js";

const BATCH_MAX = 10;

/** Contract 7.12 allows caching successes for 24 hours and failures for 60 seconds. */
const SUCCESS_TTL_MS = 24 * 60 * 60 * 1000;
const FAILURE_TTL_MS = 60 * 1000;
const CACHE_ENTRIES = 1000;

type FetchResult = { ok: true; value: PageMetadata } | { ok: false; message: string };

/** What GetLinkMetadata needs: the service's cache of fetched pages, and the address rule. */
export interface LinkMetadataDeps {
	cache: LinkMetadataCache;
	/** Private and loopback addresses may be fetched (configuration, contract 7.12). */
	allowPrivateNetworks: boolean;
}

export type LinkMetadataCache = BoundedCache<string, FetchResult>;

/** One per service instance, so several nodes in one test process keep their own. */
export function linkMetadataCache(): LinkMetadataCache {
	return new BoundedCache<string, FetchResult>({ ttlMs: SUCCESS_TTL_MS, maxEntries: CACHE_ENTRIES });
}

/** A requested URL, trimmed: http or https, at most 2048 bytes (contract 7.12). */
export function parseLinkUrl(raw: unknown, field: string): string {
	return requiredHttpUrl(raw, field).text;
}

/** `urls` of BatchGetLinkMetadata: 1-10 URLs (contract 7.12). */
export function parseLinkUrls(raw: unknown): string[] {
	if (!Array.isArray(raw) || raw.length === 0 || raw.length > BATCH_MAX) throw invalidArgument(`urls must list 1-${BATCH_MAX} URLs`);
	return raw.map((value, i) => parseLinkUrl(value, `urls[${i}]`));
}

/** The metadata of one URL, from the cache or fetched; every failure is INVALID_ARGUMENT. */
export async function linkMetadata(deps: LinkMetadataDeps, url: string): Promise<PageMetadata> {
	const { cache } = deps;
	const cached = cache.get(url);
	if (cached !== undefined) {
		if (cached.ok) return cached.value;
		throw invalidArgument(`cannot read link metadata of ${url}: ${cached.message}`);
	}
	try {
		const page = await fetchPage(url, { ...FETCH_LIMITS, allowedAddress: addressRule(deps.allowPrivateNetworks) });
		const metadata = extractMetadata(page.html, page.url);
		cache.set(url, { ok: true, value: metadata }, SUCCESS_TTL_MS);
		return metadata;
	} catch (err) {
		const message = err instanceof FetchFailed ? err.message : "the page could not be read";
		cache.set(url, { ok: false, message }, FAILURE_TTL_MS);
		throw invalidArgument(`cannot read link metadata of ${url}: ${message}`);
	}
}
