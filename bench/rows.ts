import type { Request } from "autocannon";
import { FILTER_TAG } from "./seed-content.js";

/** Which server a row loads: the ceiling, the framework floor, the embedded app, or the cluster's gateway. */
export type Target = "raw" | "bare" | "app" | "cluster";

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

/**
 * The rows of the table, in the order they run: reads first so that they see exactly the
 * seeded memos, CreateMemo last. Transfer rows (issue 19: uploads and file downloads) join
 * this list; a row only names its target and its requests.
 */
export const ROWS: Row[] = [
	{ name: "raw node:http, same bytes (ceiling)", target: "raw", connections: CONNECTIONS, requests: profile },
	{ name: "bare moleculer-web, one action", target: "bare", connections: CONNECTIONS, requests: profile },
	{ name: "GetInstanceProfile", target: "app", connections: CONNECTIONS, requests: profile },
	{
		name: "ListMemos page 50, signed in",
		target: "app",
		connections: CONNECTIONS,
		requests: context => [signedIn(context, { method: "GET", path: "/api/v1/memos?pageSize=50" })]
	},
	{
		name: `ListMemos page 50, "${FILTER_TAG}" in tags`,
		target: "app",
		connections: CONNECTIONS,
		requests: context => [signedIn(context, { method: "GET", path: `/api/v1/memos?pageSize=50&filter=${encodeURIComponent(`"${FILTER_TAG}" in tags`)}` })]
	},
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
