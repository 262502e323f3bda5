import type { Request } from "autocannon";
import { FILTER_TAG } from "./seed-content.js";

/**
 * Which server a row loads: the ceiling, the framework floor, the embedded app, the embedded app
 * with the ListMemos response cache off (a second process on the same DATA_DIR,
 * MEMO_LIST_CACHE_MB=0), or the cluster's gateway.
 */
export type Target = "raw" | "bare" | "app" | "app-uncached" | "cluster";

/** What the rows need from the seeded app. */
export interface RowContext {
	/** Access token of the first seeded user (the instance ADMIN). */
	token: string;
	/** Memos of that user, for GetMemo. */
	sampleMemoIds: string[];
}

export interface Row {
	name: string;
	target: Target;
	connections: number;
	/** The requests each connection sends in turn, over and over, for the row's duration. */
	requests(context: RowContext): Request[];
}

export const PROFILE_PATH = "/api/v1/instance/profile";
const CONNECTIONS = 32;

function signedIn(context: RowContext, request: Request): Request {
	return { ...request, headers: { ...request.headers, authorization: `Bearer ${context.token}` } };
}

const profile = (): Request[] => [{ method: "GET", path: PROFILE_PATH }];

export const LIST_PAGE_ROW = "ListMemos page 50, signed in";
export const UNCACHED_SUFFIX = ", uncached";
const listPage = (context: RowContext): Request[] => [signedIn(context, { method: "GET", path: "/api/v1/memos?pageSize=50" })];
const TAG_LIST_ROW = `ListMemos page 50, "${FILTER_TAG}" in tags`;
const tagListPage = (context: RowContext): Request[] => [
	signedIn(context, { method: "GET", path: `/api/v1/memos?pageSize=50&filter=${encodeURIComponent(`"${FILTER_TAG}" in tags`)}` })
];

/**
 * The rows of the table, in the order they run: reads first so that they see exactly the
 * seeded memos, CreateMemo last. Transfer rows (issue 19: uploads and file downloads) join
 * this list; a row only names its target and its requests.
 */
export const ROWS: Row[] = [
	{ name: "raw node:http, same bytes (ceiling)", target: "raw", connections: CONNECTIONS, requests: profile },
	{ name: "bare moleculer-web, one action", target: "bare", connections: CONNECTIONS, requests: profile },
	{ name: "GetInstanceProfile", target: "app", connections: CONNECTIONS, requests: profile },
	// The same list, over and over with nothing written: after the warm-up the response cache answers.
	{ name: LIST_PAGE_ROW, target: "app", connections: CONNECTIONS, requests: listPage },
	{ name: TAG_LIST_ROW, target: "app", connections: CONNECTIONS, requests: tagListPage },
	// What each of those lists costs when it is computed (after any write, or for another caller or page).
	{ name: `${LIST_PAGE_ROW}${UNCACHED_SUFFIX}`, target: "app-uncached", connections: CONNECTIONS, requests: listPage },
	{ name: `${TAG_LIST_ROW}${UNCACHED_SUFFIX}`, target: "app-uncached", connections: CONNECTIONS, requests: tagListPage },
	{
		name: "GetMemo, signed in",
		target: "app",
		connections: CONNECTIONS,
		requests: context => context.sampleMemoIds.map(id => signedIn(context, { method: "GET", path: `/api/v1/memos/${id}` }))
	},
	{
		name: "CreateMemo (16 clients)",
		target: "app",
		connections: 16,
		requests: context => [
			signedIn(context, {
				method: "POST",
				path: "/api/v1/memos",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ content: "Bench memo with a task\n\n- [ ] measure again #bench", visibility: "PROTECTED" })
			})
		]
	},
	{ name: "GetInstanceProfile over NATS (cluster)", target: "cluster", connections: CONNECTIONS, requests: profile }
];
