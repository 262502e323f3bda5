import type { Caller } from "../../shared/caller.js";
import { memoChangeEvent } from "./memo-events.js";
import { outboxEntry, withOutboxEntry } from "./memo-outbox.js";
import { memoResponses } from "./memo-responses.js";
import { memoEvents } from "./memos.contract.js";
import type { MemosDeps } from "./memos-deps.js";

/**
 * A memo changed through its relations (SetMemoRelations) or its attachments (SetMemoAttachments,
 * by the attachments service): its update time moves and, in the same write, its outbox gains
 * memo.updated for webhooks (memo-outbox.ts); then the memo.updated event goes out (contract 17:
 * every change to a memo is an event; upstream dispatches its memo-updated webhook and live
 * event after both operations), and the outbox entry is relayed with the memo as `actor` sees it,
 * as UpdateMemo relays its own (a failure leaves it to the relay pass: the change is stored, and
 * the operation that made it succeeds). Nothing happens to a memo deleted meanwhile.
 */
export async function touchMemo(deps: MemosDeps, actor: Caller, id: string, time: number): Promise<void> {
	const updated = await deps.store.memos.findOneAndUpdate({ _id: id, deleteTime: null }, withOutboxEntry({ $set: { updateTime: time } }, outboxEntry("memo.updated", time)));
	if (updated === null) return;
	await deps.announce(memoEvents.updated, memoChangeEvent(updated, actor, time));
	let rendered: Record<string, unknown>[];
	try {
		rendered = await memoResponses(deps, actor, [updated]);
	} catch (err) {
		// The change is stored with its entry: the relay pass renders and relays it.
		deps.leftForRepair(err, `relaying the change of memo "memos/${id}" to webhooks`);
		return;
	}
	await deps.relayNow([updated], rendered);
}
