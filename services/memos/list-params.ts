import { normalizePageSize } from "../../shared/paging/list-page.js";
import { parseInt32 } from "../../shared/proto-json.js";
import { enumOf, queryBoolOf, queryParamOf, queryStringOf } from "../../shared/request-message.js";
import type { MemoState } from "./memo-doc.js";
import { STATE_VALUES } from "./memo-fields.js";

/** ListMemos query parameters (contract 7.2), validated; they arrive as strings. */
export interface ListMemosQuery {
	pageSize: number;
	pageToken: string;
	state: MemoState;
	showDeleted: boolean;
	filter: string;
	orderBy: string;
}

function text(value: unknown, name: string): string {
	return queryStringOf(value, name) ?? "";
}

export function parseListMemosQuery(params: Record<string, unknown>): ListMemosQuery {
	const pageSize = queryParamOf(params, "pageSize");
	const state = queryParamOf(params, "state");
	const parsedState = enumOf(state, STATE_VALUES, "state");
	return {
		pageSize: normalizePageSize(pageSize === undefined ? undefined : parseInt32(pageSize, "pageSize")),
		pageToken: text(queryParamOf(params, "pageToken"), "pageToken"),
		state: parsedState === "ARCHIVED" ? "ARCHIVED" : "NORMAL",
		showDeleted: queryBoolOf(params, "showDeleted"),
		filter: text(queryParamOf(params, "filter"), "filter"),
		orderBy: text(queryParamOf(params, "orderBy"), "orderBy")
	};
}
