import type { Context, ServiceBroker } from "moleculer";
import type { RequestMeta } from "../../../shared/caller.js";
import { BoundedCache } from "../../../shared/cache/bounded-cache.js";
import { invalidArgument } from "../../../shared/errors.js";
import { resourcesOf } from "../../../shared/runtime/resources.js";
import type { MemosActions } from "../memos-schema.js";
import { isPublicAddress } from "./address-guard.js";
import { extractMetadata, type PageMetadata } from "./extract-metadata.js";
import { FETCH_LIMITS, FetchFailed, fetchPage } from "./fetch-page.js";

const URL_MAX_BYTES = 2048;
const BATCH_MAX = 10;

/** Contract 7.12 allows caching successes for 24 hours and failures for 60 seconds. */
const SUCCESS_TTL_MS = 24 * 60 * 60 * 1000;
const FAILURE_TTL_MS = 60 * 1000;
const CACHE_ENTRIES = 1000;

type FetchResult = { ok: true; value: PageMetadata } | { ok: false; message: string };

/** One cache per node (several nodes may share a test process). */
const caches = new WeakMap<ServiceBroker, BoundedCache<string, FetchResult>>();

function cacheOf(broker: ServiceBroker): BoundedCache<string, FetchResult> {
	let cache = caches.get(broker);
	if (cache === undefined) {
		cache = new BoundedCache<string, FetchResult>({ ttlMs: SUCCESS_TTL_MS, maxEntries: CACHE_ENTRIES });
		caches.set(broker, cache);
	}
	return cache;
}

/** A requested URL, trimmed: http or https, at most 2048 bytes (contract 7.12). */
export function parseLinkUrl(raw: unknown, field: string): string {
	if (typeof raw !== "string") throw invalidArgument(`${field} must be a string`);
	const url = raw.trim();
	if (url === "") throw invalidArgument(`${field} is required`);
	if (Buffer.byteLength(url) > URL_MAX_BYTES) throw invalidArgument(`${field} must be at most ${URL_MAX_BYTES} bytes`);
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw invalidArgument(`${field} is not a valid URL`);
	}
	if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw invalidArgument(`${field} must be an http or https URL`);
	return url;
}

/** The metadata of one URL, from the cache or fetched; every failure is INVALID_ARGUMENT. */
async function metadataOf(broker: ServiceBroker, url: string): Promise<PageMetadata> {
	const cache = cacheOf(broker);
	const cached = cache.get(url);
	if (cached !== undefined) {
		if (cached.ok) return cached.value;
		throw invalidArgument(`cannot read link metadata of ${url}: ${cached.message}`);
	}
	try {
		const allowPrivate = resourcesOf(broker).config.linkMetadataAllowPrivateNetworks;
		const page = await fetchPage(url, { ...FETCH_LIMITS, allowedAddress: allowPrivate ? () => true : isPublicAddress });
		const metadata = extractMetadata(page.html, page.url);
		cache.set(url, { ok: true, value: metadata }, SUCCESS_TTL_MS);
		return metadata;
	} catch (err) {
		const message = err instanceof FetchFailed ? err.message : "the page could not be read";
		cache.set(url, { ok: false, message }, FAILURE_TTL_MS);
		throw invalidArgument(`cannot read link metadata of ${url}: ${message}`);
	}
}

type LinkCtx<P> = Context<P, RequestMeta>;

export const linkMetadataActions: MemosActions = {
	/** GetLinkMetadata (contract 7.12). */
	getLinkMetadata: {
		async handler(ctx: LinkCtx<{ url?: unknown }>) {
			const url = parseLinkUrl(ctx.params.url ?? "", "url");
			return { url: ctx.params.url, ...(await metadataOf(this.broker, url)) };
		}
	},

	/** BatchGetLinkMetadata (contract 7.12): 1-10 URLs, answers in input order; one failure fails the call. */
	batchGetLinkMetadata: {
		async handler(ctx: LinkCtx<{ urls?: unknown }>) {
			const raw = ctx.params.urls;
			if (!Array.isArray(raw) || raw.length === 0 || raw.length > BATCH_MAX) throw invalidArgument(`urls must list 1-${BATCH_MAX} URLs`);
			const urls = raw.map((value, i) => parseLinkUrl(value, `urls[${i}]`));
			const results = await Promise.all(urls.map(url => metadataOf(this.broker, url)));
			return { linkMetadata: results.map((metadata, i) => ({ url: raw[i] as string, ...metadata })) };
		}
	}
};
