import type { Caller } from "../../shared/caller.js";
import type { EventRef } from "../../shared/contract.js";
import { formatName } from "../../shared/names.js";
import { toTimestamp } from "../../shared/proto-json.js";
import type { MemoDoc } from "./memo-doc.js";
import type { MemoChangeEvent } from "./memos.contract.js";

/** The change event (contract 17) of `memo`, made by `actor` (null: no user's request) at `now` (epoch ms): ids only. */
export function memoChangeEvent(memo: Pick<MemoDoc, "_id" | "creatorId" | "spaceId" | "parentId">, actor: Caller | null, now: number): MemoChangeEvent {
	return {
		memo: formatName("memo", memo._id),
		creator: formatName("user", memo.creatorId),
		spaceId: memo.spaceId,
		...(memo.parentId === null ? {} : { parent: formatName("memo", memo.parentId) }),
		actor: actor === null ? "" : formatName("user", actor.id),
		at: toTimestamp(now)
	};
}

/** Broadcasts a stored change; never fails the change it tells of (the service logs a failed broadcast). */
export type AnnounceChange = (event: EventRef<MemoChangeEvent>, payload: MemoChangeEvent) => Promise<void>;
