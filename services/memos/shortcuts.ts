import type { Caller } from "../../shared/caller.js";
import { invalidArgument, notFound } from "../../shared/errors.js";
import { parseUpdateMask } from "../../shared/field-mask.js";
import { generateId } from "../../shared/ids.js";
import { listPage, pageSizeParam } from "../../shared/paging/list-page.js";
import { fieldOf, messageOf, queryStringOf, stringOf } from "../../shared/request-message.js";
import type { Collection, Doc } from "../../shared/store/document-store.js";
import { parseMemoFilter } from "./filter/memo-filter.js";
import { ownUser } from "./own-user.js";

/**
 * Shortcuts (contract 16, upstream v0.30.0 ShortcutService): a user's saved memo filters. The
 * memos service keeps them because their filter is a ListMemos filter: it is checked here with
 * the memo filter grammar when saved, so a shortcut never holds a filter ListMemos refuses.
 */

export interface ShortcutDoc extends Doc {
	userId: string;
	title: string;
	filter: string;
	createTime: number;
}

const MAX_TITLE_LENGTH = 256;

export interface ShortcutDeps {
	shortcuts: Collection<ShortcutDoc>;
	/** User ids per username, in one call. */
	userIds(usernames: string[]): Promise<Map<string, string>>;
	now(): number;
}

export function toShortcutJson(username: string, doc: ShortcutDoc): Record<string, unknown> {
	return { name: `users/${username}/shortcuts/${doc._id}`, title: doc.title, filter: doc.filter };
}

/** The user of `users/{user}/shortcuts`, when the caller is that user (only they manage their shortcuts). */
const ownerId = (deps: ShortcutDeps, username: unknown, caller: Caller) => ownUser(deps.userIds, username, caller, "shortcuts");

function titleOf(raw: unknown): string {
	const title = stringOf(raw, "title");
	const length = [...title].length;
	if (length < 1 || length > MAX_TITLE_LENGTH) throw invalidArgument(`title must be 1-${MAX_TITLE_LENGTH} characters`);
	return title;
}

/** A filter ListMemos would accept (contract 6.1, 6.2); empty means every memo. */
function filterOf(raw: unknown): string {
	const filter = stringOf(raw, "filter");
	parseMemoFilter(filter);
	return filter;
}

async function ownedShortcut(deps: ShortcutDeps, ownerId: string, id: unknown): Promise<ShortcutDoc> {
	const shortcutId = typeof id === "string" ? id : "";
	const doc = shortcutId === "" ? null : await deps.shortcuts.findOne({ _id: shortcutId, userId: ownerId });
	if (doc === null) throw notFound(`shortcut ${shortcutId} not found`);
	return doc;
}

export interface CreateShortcutParams {
	user?: unknown;
	shortcut?: unknown;
}

/** CreateShortcut; `validateOnly` checks the request and saves nothing. */
export async function createShortcut(deps: ShortcutDeps, params: CreateShortcutParams, validateOnly: boolean, caller: Caller): Promise<Record<string, unknown>> {
	const owner = await ownerId(deps, params.user, caller);
	const body = messageOf(params.shortcut, "shortcut");
	const doc: ShortcutDoc = {
		_id: generateId(),
		userId: owner.id,
		title: titleOf(fieldOf(body, "title")),
		filter: filterOf(fieldOf(body, "filter")),
		createTime: deps.now()
	};
	if (!validateOnly) await deps.shortcuts.insert(doc);
	return toShortcutJson(owner.username, doc);
}

/** ListShortcuts, oldest first (the order they were made in). */
export async function listShortcuts(
	deps: ShortcutDeps,
	params: { user?: unknown; pageSize?: unknown; pageToken?: unknown },
	caller: Caller
): Promise<Record<string, unknown>> {
	const owner = await ownerId(deps, params.user, caller);
	if (params.pageToken !== undefined && typeof params.pageToken !== "string") throw invalidArgument("pageToken must be a string");
	const page = await listPage(deps.shortcuts, {
		operation: "ListShortcuts",
		query: { user: owner.id },
		pageSize: pageSizeParam(params.pageSize),
		pageToken: params.pageToken,
		sort: { createTime: 1, _id: 1 },
		keyTypes: { createTime: "number", _id: "string" },
		branches: [{ userId: owner.id }]
	});
	return { shortcuts: page.items.map(doc => toShortcutJson(owner.username, doc)), nextPageToken: page.nextPageToken };
}

export async function getShortcut(deps: ShortcutDeps, params: { user?: unknown; shortcut?: unknown }, caller: Caller): Promise<Record<string, unknown>> {
	const owner = await ownerId(deps, params.user, caller);
	return toShortcutJson(owner.username, await ownedShortcut(deps, owner.id, params.shortcut));
}

export interface UpdateShortcutParams {
	user?: unknown;
	shortcut?: unknown;
	patch?: unknown;
	updateMask?: unknown;
}

/** UpdateShortcut: `title` and `filter`, as named by updateMask. */
export async function updateShortcut(deps: ShortcutDeps, params: UpdateShortcutParams, caller: Caller): Promise<Record<string, unknown>> {
	const owner = await ownerId(deps, params.user, caller);
	const paths = parseUpdateMask(queryStringOf(params.updateMask, "updateMask"), ["title", "filter"], { required: true });
	const body = messageOf(params.patch, "shortcut");
	const doc = await ownedShortcut(deps, owner.id, params.shortcut);
	const changes: Partial<Pick<ShortcutDoc, "title" | "filter">> = {};
	if (paths.includes("title")) changes.title = titleOf(fieldOf(body, "title"));
	if (paths.includes("filter")) changes.filter = filterOf(fieldOf(body, "filter"));
	const changed = await deps.shortcuts.update({ _id: doc._id, userId: owner.id }, { $set: changes });
	if (changed === 0) throw notFound(`shortcut ${doc._id} not found`);
	return toShortcutJson(owner.username, { ...doc, ...changes });
}

export async function deleteShortcut(deps: ShortcutDeps, params: { user?: unknown; shortcut?: unknown }, caller: Caller): Promise<void> {
	const owner = await ownerId(deps, params.user, caller);
	const doc = await ownedShortcut(deps, owner.id, params.shortcut);
	await deps.shortcuts.remove({ _id: doc._id });
}
