import type { Caller } from "../../shared/caller.js";
import { alreadyExists, invalidArgument } from "../../shared/errors.js";
import { resolveId } from "../../shared/ids.js";
import { fieldOf, messageOf } from "../../shared/request-message.js";
import { insertSequenced } from "../../shared/sequence.js";
import { DuplicateKeyError } from "../../shared/store/document-store.js";
import { deriveContent } from "./content/derive-content.js";
import { applyLinks, checkedNames, linkMark, linkTarget } from "./memo-attachment-links.js";
import { countedMemoChange } from "./memo-count.js";
import type { MemoDoc, MemoLocation, Visibility } from "./memo-doc.js";
import {
	readContent,
	readLocation,
	readPinned,
	readSpace,
	readTime,
	readVisibility,
	leavesVisibilityUnspecified
} from "./memo-fields.js";
import { assertCanPlace } from "./memo-spaces.js";
import { memoChangeEvent } from "./memo-events.js";
import { memoEvents } from "./memos.contract.js";
import { newMemoOutbox } from "./memo-outbox.js";
import type { MemosDeps } from "./memos-deps.js";
import { mayNotify, notifySaved } from "./notifications/notify-memo.js";
import { addReferences, assertRelatable, parseReferences } from "./relations.js";

export interface CreateMemoParams {
	memoId?: unknown;
	memo?: unknown;
}

/** What a CreateMemo request asks for, validated (contract 7.3). */
export interface CreateMemoInput {
	id: string;
	content: string;
	visibility: Visibility;
	pinned: boolean;
	location: MemoLocation | null;
	spaceId: string | null;
	createTime: number | undefined;
	updateTime: number | undefined;
	/** The body's `attachments`, unparsed: the attachments service applies them (contract 7.3, 7.9). */
	attachments: unknown;
}

/**
 * `memoId` per contract 1.5 (generated when empty), content within `contentLimit` UTF-8
 * bytes, visibility `defaultVisibility` (the creator's GENERAL setting) when unspecified and SPACE only with a space. `state` and output-only
 * fields are ignored.
 */
export function parseCreateMemo(params: CreateMemoParams, contentLimit: number, defaultVisibility: Visibility = "PRIVATE"): CreateMemoInput {
	if (params.memoId !== undefined && typeof params.memoId !== "string") throw invalidArgument("memoId must be a string");
	const id = resolveId(params.memoId, "memoId", "memo");
	const body = messageOf(params.memo, "memo");
	const content = readContent(fieldOf(body, "content"), contentLimit);
	const visibility = readVisibility(fieldOf(body, "visibility"), defaultVisibility);
	const spaceId = readSpace(fieldOf(body, "space"));
	if (visibility === "SPACE" && spaceId === null) throw invalidArgument("visibility SPACE requires a space");
	return {
		id,
		content,
		visibility,
		pinned: readPinned(fieldOf(body, "pinned")),
		location: readLocation(fieldOf(body, "location")),
		spaceId,
		createTime: readTime(fieldOf(body, "createTime"), "createTime"),
		updateTime: readTime(fieldOf(body, "updateTime"), "updateTime"),
		attachments: fieldOf(body, "attachments")
	};
}

/** A created memo, the attachments it was created with, in display order, and whether it was created with relations. */
export interface CreatedMemo {
	memo: MemoDoc;
	attachments: Record<string, unknown>[];
	related: boolean;
}

/** CreateMemo, and CreateMemoComment with the commented memo as `parent` (contract 7.3, 7.7). */
export async function createMemo(deps: MemosDeps, caller: Caller, params: CreateMemoParams, parent: Pick<MemoDoc, "_id" | "creatorId"> | null, now: number): Promise<CreatedMemo> {
	const parentId = parent?._id ?? null;
	// A new memo without a visibility takes its creator's default (user setting GENERAL, contract 16); a comment stays PRIVATE.
	const defaultVisibility = parentId === null && leavesVisibilityUnspecified(params.memo) ? await deps.peers.defaultVisibility(caller.id) : "PRIVATE";
	const input = parseCreateMemo(params, await deps.contentLengthLimit(), defaultVisibility);
	const relatedIds = parseReferences(fieldOf(messageOf(params.memo, "memo"), "relations"), input.id);
	const spaces = await deps.peers.spacesOf(caller);
	await assertRelatable(deps.store, relatedIds, caller, spaces);
	assertCanPlace(spaces, input.spaceId);
	const memo: MemoDoc = {
		_id: input.id,
		// Numbered by the insert.
		seq: 0,
		creatorId: caller.id,
		content: input.content,
		visibility: input.visibility,
		state: "NORMAL",
		pinned: input.pinned,
		createTime: input.createTime ?? now,
		updateTime: input.updateTime ?? now,
		...deriveContent(input.content),
		location: input.location,
		spaceId: input.spaceId,
		parentId,
		deleteTime: null,
		...(mayNotify(input.content, parentId) ? { notifyPending: now } : {}),
		...newMemoOutbox(now, parent?.creatorId)
	};
	const target = linkTarget(memo);
	const links = input.attachments === undefined ? [] : checkedNames(await deps.peers.linkAttachments(target, input.attachments, false));
	// Written with the memo: the links are then applied, or completed by the repair pass.
	if (links.length > 0) Object.assign(memo, linkMark(links));
	// The first sequence value is taken beside the count's opening write (countedMemoChange), so
	// that both writes share a commit: one commit less for the request to wait for.
	const nextSeq = firstTakenNow(deps.store.nextSeq);
	try {
		const insert = async () => ({ result: await insertSequenced(deps.store.memos, nextSeq, seq => Object.assign(memo, { seq })), added: 1 });
		await countedMemoChange(deps.store.totals, now, insert, err => err instanceof DuplicateKeyError);
	} catch (err) {
		// Soft-deleted memos keep their document, so their ids stay taken until purged.
		if (err instanceof DuplicateKeyError) throw alreadyExists(`memo "memos/${input.id}" already exists`);
		throw err;
	}
	deps.countCreated(parentId === null ? "memo" : "comment");
	const attachments = await applyLinks(deps, memo);
	await addReferences(deps.store, memo._id, relatedIds, now);
	await notifySaved(deps, memo, now);
	// A comment is announced by CreateMemoComment, once it is sure to stay one.
	if (parentId === null) await deps.announce(memoEvents.created, memoChangeEvent(memo, caller, now));
	return { memo, attachments, related: relatedIds.length > 0 };
}

/**
 * `nextSeq`, called once at once: its first call answers that value, later calls take new ones.
 * When the caller fails before asking (the count's write failed), that value is never used
 * (a gap in the sequence, which only needs to increase) and its failure is the caller's.
 */
function firstTakenNow(nextSeq: () => Promise<number>): () => Promise<number> {
	let first: Promise<number> | null = nextSeq();
	first.catch(() => undefined);
	return () => {
		const value = first ?? nextSeq();
		first = null;
		return value;
	};
}
