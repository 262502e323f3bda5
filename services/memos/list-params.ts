import { invalidArgument } from "../../shared/errors.js";
import { normalizePageSize } from "../../shared/page-token.js";
import { parseBool, parseEnum, parseInt32 } from "../../shared/proto-json.js";
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

/** A query parameter by its JSON name or its snake_case name; an empty value reads as absent. */
function param(params: Record<string, unknown>, jsonName: string): unknown {
	const snake = jsonName.replace(/[A-Z]/g, c => `_${c.toLowerCase()}`);
	const value = params[jsonName] ?? params[snake];
	return value === "" ? undefined : value;
}

function text(value: unknown, name: string): string {
	if (value === undefined) return "";
	if (typeof value !== "string") throw invalidArgument(`${name} must be given once, as a string`);
	return value;
}

export function parseListMemosQuery(params: Record<string, unknown>): ListMemosQuery {
	const pageSize = param(params, "pageSize");
	const state = param(params, "state");
	const showDeleted = param(params, "showDeleted");
	const parsedState = state === undefined ? "STATE_UNSPECIFIED" : parseEnum(state, STATE_VALUES, "state");
	return {
		pageSize: normalizePageSize(pageSize === undefined ? undefined : parseInt32(pageSize, "pageSize")),
		pageToken: text(param(params, "pageToken"), "pageToken"),
		state: parsedState === "ARCHIVED" ? "ARCHIVED" : "NORMAL",
		showDeleted: showDeleted === undefined ? false : parseBool(showDeleted, "showDeleted"),
		filter: text(param(params, "filter"), "filter"),
		orderBy: text(param(params, "orderBy"), "orderBy")
	};
}
