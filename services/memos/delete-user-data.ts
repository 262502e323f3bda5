import type { Context } from "moleculer";
import type { RequestMeta } from "../../shared/caller.js";
import { call } from "../../shared/contract.js";
import { attachmentsActions } from "../attachments/attachments.contract.js";
import { purgeMemoExtras } from "./memo-extras.js";
import type { MemosActions } from "./memos-schema.js";
import { reactionCollection } from "./reactions.js";
import { detachMemos } from "./relations.js";
import { shareCollection } from "./shares.js";

export const deleteUserDataAction: MemosActions = {
	/**
	 * For DeleteUser (contract 2.4): the user's reactions and share links, and their memos purged
	 * as with `force` (others' comments on them survive as ordinary memos). Idempotent.
	 */
	deleteUserData: {
		visibility: "public",
		async handler(ctx: Context<{ userId?: string }, RequestMeta>): Promise<void> {
			const userId = ctx.params.userId;
			if (typeof userId !== "string" || userId === "") return;
			await reactionCollection(this.broker).remove({ creatorId: userId }, { multi: true });
			await shareCollection(this.broker).remove({ creatorId: userId }, { multi: true });
			const memos = this.memoCollection();
			const ids = (await memos.find({ creatorId: userId }, { projection: { _id: 1 } })).map(memo => memo._id);
			if (ids.length === 0) return;
			await detachMemos(this.broker, ids);
			await memos.remove({ _id: { $in: ids } }, { multi: true });
			await purgeMemoExtras(this.broker, ids);
			await call(ctx, attachmentsActions.deleteForMemos, { memoIds: ids });
		}
	}
};
