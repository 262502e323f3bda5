import type { Caller } from "../../shared/caller.js";
import { invalidArgument } from "../../shared/errors.js";
import { listPage, normalizePageSize } from "../../shared/paging/list-page.js";
import { parseInt32 } from "../../shared/proto-json.js";
import type { AuthDeps } from "./auth-deps.js";
import { requireAdmin } from "./user-access.js";
import type { UserDoc } from "./user-doc.js";

export interface ListUsersParams {
	pageSize?: unknown;
	pageToken?: unknown;
	filter?: unknown;
}

const FILTER = /^\s*username\s*==\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*$/;

/** The only filter ListUsers accepts (contract 2.4): `username == "<name>"`. */
export function parseUserFilter(raw: unknown): string | undefined {
	if (raw === undefined || raw === "") return undefined;
	const match = typeof raw === "string" ? FILTER.exec(raw) : null;
	if (!match) throw invalidArgument('filter: only username == "<name>" is supported');
	return (match[1] ?? match[2] ?? "").replace(/\\(.)/g, "$1");
}

/** ListUsers (contract 2.4): admins only, oldest first. */
export async function listUsers(deps: AuthDeps, params: ListUsersParams, caller: Caller | null | undefined): Promise<{ users: UserDoc[]; nextPageToken: string }> {
	requireAdmin(caller);
	const username = parseUserFilter(params.filter);
	const pageSize = normalizePageSize(params.pageSize === undefined ? undefined : parseInt32(params.pageSize, "pageSize"));
	if (params.pageToken !== undefined && typeof params.pageToken !== "string") throw invalidArgument("pageToken must be a string");
	const page = await listPage(deps.users, {
		operation: "ListUsers",
		query: { filter: params.filter ?? "" },
		pageSize,
		pageToken: params.pageToken,
		sort: { createTime: 1, _id: 1 },
		keyTypes: { createTime: "number", _id: "string" },
		branches: [username === undefined ? {} : { username }]
	});
	return { users: page.items, nextPageToken: page.nextPageToken };
}
