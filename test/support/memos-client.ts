import { authHeaders, type Session } from "./users.js";

/** A small HTTP client for the memo API tests: JSON in, status and parsed JSON out. */

export interface Answer<T = Record<string, unknown>> {
	status: number;
	/** Parsed JSON; undefined for an empty body. */
	body: T;
	/** The raw body text (an Empty answer is ""). */
	text: string;
}

export type Memo = Record<string, unknown> & { name: string };

export interface ListAnswer {
	memos: Memo[];
	nextPageToken: string;
	code?: number;
}

export interface RequestOptions {
	/** A session, or a bare token (a personal access token). */
	as?: Session | string | null;
	query?: Record<string, string>;
	/** An object is sent as JSON; a string is sent verbatim (raw JSON text). */
	body?: unknown;
}

/** `baseUrl` may be a function, read on each request, for a client made before its app starts. */
export function memoClient(baseUrl: string | (() => string)) {
	async function request<T = Record<string, unknown>>(method: string, path: string, options: RequestOptions = {}): Promise<Answer<T>> {
		// encodeURIComponent leaves `(` and `)` alone (URLSearchParams would triple them), which
		// keeps very long filters within the HTTP server's request-line limit.
		const search = Object.entries(options.query ?? {})
			.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
			.join("&");
		const base = typeof baseUrl === "function" ? baseUrl() : baseUrl;
		const url = `${base}/api/v1${path}${search === "" ? "" : `?${search}`}`;
		const headers: Record<string, string> = options.as ? authHeaders(options.as) : { "Content-Type": "application/json" };
		const body = options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body);
		const res = await fetch(url, { method, headers, body });
		const text = await res.text();
		return { status: res.status, body: (text === "" ? undefined : JSON.parse(text)) as T, text };
	}

	return {
		request,
		create(as: Session | string | null, memo: Record<string, unknown> | string, memoId?: string) {
			return request<Memo>("POST", "/memos", { as, body: memo, query: memoId === undefined ? {} : { memoId } });
		},
		get(as: Session | string | null, name: string) {
			return request<Memo>("GET", `/${name}`, { as });
		},
		update(as: Session | string | null, name: string, updateMask: string | undefined, memo: Record<string, unknown>) {
			return request<Memo>("PATCH", `/${name}`, { as, body: memo, query: updateMask === undefined ? {} : { updateMask } });
		},
		remove(as: Session | string | null, name: string, force?: string) {
			return request("DELETE", `/${name}`, { as, query: force === undefined ? {} : { force } });
		},
		list(as: Session | string | null, query: Record<string, string> = {}) {
			return request<ListAnswer>("GET", "/memos", { as, query });
		},
		/** Sets the ACCESS mode through UpdateInstanceSetting (contract 11.4). */
		async setAccessMode(admin: Session, mode: "PUBLIC" | "PRIVATE") {
			const res = await request("PATCH", "/instance/settings/ACCESS", {
				as: admin,
				body: { accessSetting: { accessMode: `INSTANCE_ACCESS_MODE_${mode}` } }
			});
			if (res.status !== 200) throw new Error(`UpdateInstanceSetting ACCESS answered ${res.status}: ${res.text}`);
		}
	};
}

export type MemoClient = ReturnType<typeof memoClient>;

/** Walks every page of a ListMemos query, returning the memo names in order and the page sizes. */
export async function listAll(
	client: MemoClient,
	as: Session | string | null,
	query: Record<string, string>
): Promise<{ names: string[]; pages: number[] }> {
	const names: string[] = [];
	const pages: number[] = [];
	let pageToken = "";
	for (;;) {
		const res = await client.list(as, pageToken === "" ? query : { ...query, pageToken });
		if (res.status !== 200) throw new Error(`ListMemos answered ${res.status}: ${res.text}`);
		names.push(...res.body.memos.map(m => m.name));
		pages.push(res.body.memos.length);
		pageToken = res.body.nextPageToken;
		if (pageToken === "") return { names, pages };
	}
}
