import type { Caller } from "../../shared/caller.js";
import { invalidArgument, notFound } from "../../shared/errors.js";
import { parseUpdateMask } from "../../shared/field-mask.js";
import { fieldOf, messageOf } from "../../shared/request-message.js";
import type { Update } from "../../shared/store/document-store.js";
import { deriveContent } from "./content/derive-content.js";
import { assertCanUpdate } from "./memo-access.js";
import { applyLinks, checkedNames, linkTarget, updateMark } from "./memo-attachment-links.js";
import type { MemoDoc, MemoLocation, MemoState, Visibility } from "./memo-doc.js";
import {
	readContent,
	readLocation,
	readPinned,
	readSpace,
	readState,
	readTime,
	readVisibility
} from "./memo-fields.js";
import { checkSpaceMove, movesAttachments } from "./memo-space-changes.js";
import { memoChangeEvent } from "./memo-events.js";
import { memoEvents } from "./memos.contract.js";
import { outboxEntry, withOutboxEntry } from "./memo-outbox.js";
import type { MemosDeps } from "./memos-deps.js";
import { mayNotify, notifySaved } from "./notifications/notify-memo.js";
import { assertRelatable, parseReferences, replaceReferences } from "./relations.js";

/** The mask paths of contract 7.5. */
export const UPDATE_MEMO_PATHS = [
	"content",
	"visibility",
	"pinned",
	"state",
	"create_time",
	"update_time",
	"location",
	"attachments",
	"relations",
	"space"
] as const;

export interface UpdateMemoParams {
	updateMask?: unknown;
	patch?: unknown;
}

/** The fields an update sets; a key is present exactly when its path is in the mask. */
export interface MemoChanges {
	content?: string;
	visibility?: Visibility;
	pinned?: boolean;
	state?: MemoState;
	createTime?: number;
	location?: MemoLocation | null;
	spaceId?: string | null;
	/** The body's `attachments`, unparsed: the attachments service applies them (contract 7.9). */
	attachments?: unknown;
	/** The body's `relations`, unparsed: they are read against the memo's id (relations.ts, parseReferences). */
	relations?: unknown;
	/** Always set: the given time when `update_time` is masked, else now (contract 7.5). */
	updateTime: number;
}

/** Validates the mask and the masked fields of an UpdateMemo request; fields outside the mask are ignored. */
export function parseUpdateMemo(params: UpdateMemoParams, contentLimit: number, now: number): MemoChanges {
	if (params.updateMask !== undefined && typeof params.updateMask !== "string") throw invalidArgument("updateMask must be a string");
	const paths = parseUpdateMask(params.updateMask, UPDATE_MEMO_PATHS, { required: true });
	const body = messageOf(params.patch, "memo");
	const changes: MemoChanges = { updateTime: now };
	for (const path of paths) {
		switch (path) {
			case "content":
				changes.content = readContent(fieldOf(body, "content"), contentLimit);
				break;
			case "visibility":
				changes.visibility = readVisibility(fieldOf(body, "visibility"));
				break;
			case "pinned":
				changes.pinned = readPinned(fieldOf(body, "pinned"));
				break;
			case "state":
				changes.state = readState(fieldOf(body, "state"));
				break;
			case "create_time": {
				const createTime = readTime(fieldOf(body, "createTime"), "createTime");
				if (createTime === undefined) throw invalidArgument("createTime must be set when create_time is in updateMask");
				changes.createTime = createTime;
				break;
			}
			case "update_time":
				changes.updateTime = readTime(fieldOf(body, "updateTime"), "updateTime") ?? now;
				break;
			case "location":
				changes.location = readLocation(fieldOf(body, "location"));
				break;
			case "space":
				changes.spaceId = readSpace(fieldOf(body, "space"));
				break;
			case "relations":
				changes.relations = fieldOf(body, "relations") ?? [];
				break;
			case "attachments":
				changes.attachments = fieldOf(body, "attachments") ?? [];
				break;
		}
	}
	return changes;
}

/**
 * The store update for `changes` on `memo`: SPACE visibility needs a space after the update
 * (the memo's, or one set in the same request), and new content recomputes the derived values.
 */
export function memoUpdate(memo: MemoDoc, changes: MemoChanges): Update {
	const visibility = changes.visibility ?? memo.visibility;
	const spaceId = changes.spaceId !== undefined ? changes.spaceId : memo.spaceId;
	if (visibility === "SPACE" && spaceId === null) {
		throw invalidArgument(
			changes.visibility === "SPACE" ? "visibility SPACE requires the memo to have a space" : "a SPACE memo cannot leave its space; change visibility too"
		);
	}
	const set: Record<string, unknown> = { updateTime: changes.updateTime };
	if (changes.content !== undefined) Object.assign(set, { content: changes.content }, deriveContent(changes.content));
	if (changes.visibility !== undefined) set.visibility = changes.visibility;
	if (changes.pinned !== undefined) set.pinned = changes.pinned;
	if (changes.state !== undefined) set.state = changes.state;
	if (changes.createTime !== undefined) set.createTime = changes.createTime;
	if (changes.location !== undefined) set.location = changes.location;
	if (changes.spaceId !== undefined) set.spaceId = changes.spaceId;
	return { $set: set };
}

/** UpdateMemo (contract 7.5): the memo as updated. */
export async function updateMemo(deps: MemosDeps, caller: Caller, id: string, params: UpdateMemoParams, now: number): Promise<MemoDoc> {
	const { store, peers } = deps;
	const changes = parseUpdateMemo(params, await deps.contentLengthLimit(), now);
	const relatedIds = changes.relations === undefined ? undefined : parseReferences(changes.relations, id);
	const memo = await store.memos.findOne({ _id: id });
	const spaces = await peers.spacesOf(caller);
	assertCanUpdate(memo, id, caller, spaces);
	if (relatedIds !== undefined) await assertRelatable(store, relatedIds, caller, spaces);
	await checkSpaceMove(deps, caller, memo, changes.spaceId);
	const update = memoUpdate(memo, changes);
	const names = changes.attachments === undefined ? undefined : checkedNames(await peers.linkAttachments(linkTarget(memo), changes.attachments, false));
	// Written with the update: the attachments are then linked or moved along, or by the repair pass.
	const mark = updateMark(memo, names, movesAttachments(memo, { ...memo, ...update.$set }));
	update.$set = { ...update.$set, ...mark };
	// Any save may change who can read the memo's mentions (contract 17): each is judged again.
	if (mayNotify(changes.content ?? memo.content, memo.parentId)) update.$set = { ...update.$set, notifyPending: now };
	const updated = await store.memos.findOneAndUpdate({ _id: id, deleteTime: null }, withOutboxEntry(update, outboxEntry("memo.updated", now)));
	// Deleted between the read and the write.
	if (updated === null) throw notFound(`memo "memos/${id}" not found`);
	if (mark.cleanup !== undefined) await applyLinks(deps, updated);
	if (relatedIds !== undefined) await replaceReferences(store, id, relatedIds, now);
	await notifySaved(deps, updated, now);
	await deps.announce(memoEvents.updated, memoChangeEvent(updated, caller, now));
	return updated;
}
