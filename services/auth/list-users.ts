import type { Caller } from "../../shared/caller.js";
import { invalidArgument } from "../../shared/errors.js";
import { decodePageToken, encodePageToken, normalizePageSize } from "../../shared/page-token.js";
import { parseInt32 } from "../../shared/proto-json.js";
import type { Filter } from "../../shared/store/document-store.js";
import type { AuthDeps } from "./auth-deps.js";
import { requireAdmin } from "./user-access.js";
import type { UserDoc } from "./user-doc.js";

export interface ListUsersParams {
	pageSize?: unknown;
	pageToken?: unknown;
	filter?: unknown;
}

/** Creation time and id of the last user of a page. */
type Position = [number, string];

const isPosition = (p: unknown): p is Position => Array.isArray(p) && p.length === 2 && Number.isFinite(p[0]) && typeof p[1] === "string";

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
	const query = { filter: params.filter ?? "" };
	const after = decodePageToken(params.pageToken, "ListUsers", query, isPosition);
	const filter: Filter = username === undefined ? {} : { username };
	if (after) filter.$or = [{ createTime: { $gt: after[0] } }, { createTime: after[0], _id: { $gt: after[1] } }];
	const found = await deps.users.find(filter, { sort: { createTime: 1, _id: 1 }, limit: pageSize + 1 });
	const users = found.slice(0, pageSize);
	const last = users[users.length - 1];
	const nextPageToken = found.length > pageSize && last ? encodePageToken("ListUsers", query, [last.createTime, last._id]) : "";
	return { users, nextPageToken };
}
