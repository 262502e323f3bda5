import type { RouteSpec } from "../route-spec.js";

/** The live stream of memo changes (contract 17), served by the gateway itself (sse-hub.ts). */
export const sseRoutes: RouteSpec[] = [
	{
		operation: "SubscribeMemoEvents",
		method: "GET",
		path: "/api/v1/sse",
		eventStream: true,
		access: "signed-in",
		summary: "A text/event-stream of changes to memos, comments and reactions the caller can read."
	}
];
