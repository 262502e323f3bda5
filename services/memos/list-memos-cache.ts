import type { Caller } from "../../shared/caller.js";
import { deepFreeze, noteJson } from "../../shared/encoded-json.js";
import type { ListCacheResult } from "../../shared/runtime/business-metrics.js";
import type { ListMemosResponse } from "./list-memos.js";
import type { MemosPeers } from "./memos-deps.js";

/**
 * Whether an answer the memos service's own short-lived caches (memberships, user names) gave
 * while a response was computed is still the answer they give now.
 */
type PeerCheck = (peers: MemosPeers) => Promise<boolean>;

interface Entry {
	/** The store's change token read before the response was computed, and again (the same) after. */
	token: string;
	checks: PeerCheck[];
	response: ListMemosResponse;
	bytes: number;
}

/** A computed response, and whether it may be kept: not when it depends on more than the store, the key and the peers (a filter that reads the request time). */
export interface Computed {
	response: ListMemosResponse;
	cacheable: boolean;
}

export interface ListMemosCacheOptions {
	maxBytes: number;
	/** The store's change token (DocumentStore.changeToken), or null while responses may not be cached. */
	changeToken(): string | null;
	count(result: ListCacheResult): void;
}

/**
 * ListMemos responses kept while nothing they were computed from has changed: the store (its
 * change token covers every collection and every writer, so memos, reactions, relations,
 * attachments, users and memberships alike), the caller and the request's parameters as they
 * came (the key: they are parsed only when a response is computed), and the answers of the
 * service's in-process caches, asked again at each hit. Least recently used entries go first
 * past `maxBytes`. Responses are deep-frozen: embedded, the gateway gets the
 * very object, and a consumer that tried to change one would throw rather than alter what the
 * next caller reads; their JSON is noted for the gateway as UTF-8 bytes (shared/encoded-json.ts):
 * a page of memos is tens of kilobytes, which Node would measure and encode at every hit if it were text.
 */
export class ListMemosCache {
	private readonly entries = new Map<string, Entry>();
	private bytes = 0;

	constructor(private readonly options: ListMemosCacheOptions) {}

	/**
	 * The response kept for the same caller and parameters while it holds, or `compute`'s, kept
	 * when it says it may be. `peers` are those `compute` would use. Nothing of the request is
	 * parsed before the lookup: a kept entry was computed from the same parameters, so they were
	 * valid and it was cacheable; parameters that differ only in form (an empty one, a default
	 * given) are entries of their own.
	 */
	async response(request: { caller: Caller | null; params: unknown }, peers: MemosPeers, compute: (peers: MemosPeers) => Promise<Computed>): Promise<ListMemosResponse> {
		const { caller, params } = request;
		const token = this.options.changeToken();
		if (token === null) {
			this.options.count("bypass");
			return (await compute(peers)).response;
		}
		const key = JSON.stringify([caller?.id ?? null, caller?.username ?? null, caller?.role ?? null, params]);
		const entry = this.entries.get(key);
		if (entry !== undefined && entry.token === token && (await holds(entry.checks, peers))) {
			this.entries.delete(key);
			this.entries.set(key, entry);
			this.options.count("hit");
			return entry.response;
		}
		const checks: PeerCheck[] = [];
		const computed = await compute(recordingPeers(peers, checks));
		if (!computed.cacheable) {
			this.options.count("bypass");
			return computed.response;
		}
		this.options.count("miss");
		const response = deepFreeze(computed.response);
		// A write made here, or committed by another process, while the response was computed moved
		// the token: the response may hold some of it and not the rest, so it is not kept.
		if (this.options.changeToken() === token) {
			const json = Buffer.from(JSON.stringify(response));
			noteJson(response, json);
			this.keep(key, { token, checks, response, bytes: approximateBytes(key, json) });
		}
		return response;
	}

	private keep(key: string, entry: Entry): void {
		this.drop(key);
		if (entry.bytes > this.options.maxBytes) return;
		this.entries.set(key, entry);
		this.bytes += entry.bytes;
		for (const oldest of this.entries.keys()) {
			if (this.bytes <= this.options.maxBytes) break;
			this.drop(oldest);
		}
	}

	private drop(key: string): void {
		const entry = this.entries.get(key);
		if (entry === undefined) return;
		this.entries.delete(key);
		this.bytes -= entry.bytes;
	}
}

async function holds(checks: readonly PeerCheck[], peers: MemosPeers): Promise<boolean> {
	for (const check of checks) if (!(await check(peers))) return false;
	return true;
}

/** `peers` whose cached answers are noted in `checks`, to be asked again before the response is reused. */
function recordingPeers(peers: MemosPeers, checks: PeerCheck[]): MemosPeers {
	return {
		...peers,
		async spacesOf(caller) {
			const roles = await peers.spacesOf(caller);
			const seen = new Map(roles);
			checks.push(async live => sameEntries(await live.spacesOf(caller), seen));
			return roles;
		},
		async userNames(ids) {
			// A page names each of its few creators many times: each hit asks for each once.
			const asked = [...new Set(ids)];
			const names = await peers.userNames(asked);
			// A copy: the caller adds to the map it gets.
			const seen = new Map(names);
			checks.push(async live => sameEntries(await live.userNames(asked), seen));
			return names;
		}
	};
}

function sameEntries<K, V>(now: ReadonlyMap<K, V>, then: ReadonlyMap<K, V>): boolean {
	if (now.size !== then.size) return false;
	for (const [key, value] of then) if (now.get(key) !== value) return false;
	return true;
}

/**
 * Three times the key's and the JSON's length: the objects in memory (about twice the JSON) and
 * the JSON kept beside them for the gateway. An estimate, as the byte budget needs no more.
 */
function approximateBytes(key: string, json: Buffer): number {
	return 3 * (key.length + json.length);
}
